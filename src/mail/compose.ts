// A template, its data and the branding as a message: both parts, and for partner emails the
// unsubscribe link of the kind in the footer and in the RFC 8058 headers.
import type { Message } from './index';
import { renderEmail, type Rendered } from './render';
import type { MailSettings } from './brand';
import type { EmailTemplate } from './template';
import { unsubscribeUrl } from './unsubscribe';

const UNSUBSCRIBE_LABELS: Record<string, string> = {
  commissionAccrued: 'Stop emails about new commissions',
  commissionApproved: 'Stop emails about approved commissions',
  payoutSent: 'Stop emails about payouts',
  monthlyStatement: 'Stop monthly statements',
};

export function composeEmail(
  template: EmailTemplate,
  data: unknown,
  brand: MailSettings,
  to: { address: string; partnerId: string | null },
): Rendered & { headers: Record<string, string>; unsubscribeUrl: string | null } {
  const unsubscribe =
    template.notification && to.partnerId ? unsubscribeUrl(brand.baseUrl, brand.mailSecret, to.partnerId, template.notification) : null;
  const rendered = renderEmail(template.subject(data, brand), template.body(data, brand), brand, {
    unsubscribeUrl: unsubscribe ?? undefined,
    unsubscribeLabel: template.notification ? UNSUBSCRIBE_LABELS[template.notification] : undefined,
  });
  const headers: Record<string, string> = {};
  if (unsubscribe) {
    headers['List-Unsubscribe'] = `<${unsubscribe}>`;
    headers['List-Unsubscribe-Post'] = 'List-Unsubscribe=One-Click';
  }
  return { ...rendered, headers, unsubscribeUrl: unsubscribe };
}

/** The stable Message-ID of an outbox row: the same on every attempt, so receivers can dedupe. */
export function messageIdOf(rowId: string, baseUrl: string): string {
  const host = new URL(baseUrl).hostname || 'localhost';
  return `<${rowId}@${host}>`;
}

export function toMessage(rendered: ReturnType<typeof composeEmail>, to: string, messageId: string): Message {
  return { to, subject: rendered.subject, text: rendered.text, html: rendered.html, headers: rendered.headers, messageId };
}
