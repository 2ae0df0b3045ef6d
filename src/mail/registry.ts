// The email templates the outbox can send, by name (the name is stored on each outbox row).
import { adminTemplates } from './admin-templates';
import { applicationTemplates } from './application-templates';
import { partnerTemplates } from './partner-templates';
import { payoutMethodTemplates } from './payout-method-templates';
import type { EmailTemplate } from './template';
import { accountTemplates } from './templates';

export const TEMPLATES: Record<string, EmailTemplate> = {
  ...partnerTemplates,
  ...payoutMethodTemplates,
  ...adminTemplates,
  ...applicationTemplates,
  // sent at once, not through the outbox; here for the previews
  ...accountTemplates,
};

export function templateOf(name: string): EmailTemplate | undefined {
  return Object.hasOwn(TEMPLATES, name) ? TEMPLATES[name] : undefined;
}
