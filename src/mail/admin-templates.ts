// Emails to the operators (ADMIN_EMAILS). No unsubscribe: removing an address from ADMIN_EMAILS is how.
import { button, facts, heading, p, table } from './render';
import { defineTemplate } from './template';

type Signup = { partnerId: string; name: string; email: string; status: string };
type RunSummary = { runAt: string; payouts: { currency: string; count: number; amount: string }[]; partners: number };
type WebhookFailing = { endpointId: string; url: string; failures: number; lastError: string | null; lastStatus: number | null };

export const adminTemplates = {
  partner_signup: defineTemplate<Signup>({
    title: 'New partner signup (to admins)',
    audience: 'admin',
    subject: (d) => (d.status === 'applied' ? `New partner application: ${d.name}` : `New partner signup: ${d.name}`),
    body: (d, b) => [
      heading(d.status === 'applied' ? 'New partner application' : 'New partner signup'),
      p(d.status === 'applied' ? `${d.name} applied to join ${b.programName}. The application waits for your review.` : `${d.name} signed up to ${b.programName}.`),
      facts([
        ['Name', d.name],
        ['Email', d.email],
        ['Partner', d.partnerId],
      ]),
      button('Open the partner', `${b.baseUrl}/admin/partners/${encodeURIComponent(d.partnerId)}`),
    ],
    sample: { partnerId: 'ptn_01jd8x0000000000000000000a', name: 'Ada Lovelace', email: 'ada@example.com', status: 'pending' },
  }),

  payout_run_summary: defineTemplate<RunSummary>({
    title: 'Payout run summary (to admins)',
    audience: 'admin',
    subject: (d) => `Payout run: ${d.payouts.reduce((n, l) => n + l.count, 0)} payouts`,
    body: (d, b) => [
      heading('Payout run finished'),
      p(`The payout run of ${d.runAt.slice(0, 16).replace('T', ' ')} UTC created payouts for ${d.partners} ${d.partners === 1 ? 'partner' : 'partners'}.`),
      table(
        ['Currency', 'Payouts', 'Total'],
        d.payouts.map((l) => [l.currency, String(l.count), l.amount]),
        [1, 2],
      ),
      button('Review payouts', `${b.baseUrl}/admin/payouts`),
    ],
    sample: { runAt: '2026-11-01T09:00:00.000Z', partners: 3, payouts: [{ currency: 'USD', count: 3, amount: '412.75' }, { currency: 'EUR', count: 1, amount: '80.00' }] },
  }),

  webhook_failing: defineTemplate<WebhookFailing>({
    title: 'Webhook endpoint failing (to admins)',
    audience: 'admin',
    subject: (d) => `Webhook endpoint failing: ${d.url}`,
    body: (d, b) => [
      heading('A webhook endpoint keeps failing'),
      p(`The last ${d.failures} deliveries to ${d.url} failed. Events keep queueing; fix the receiver, then retry the failed deliveries. You hear about this once per failing streak.`),
      facts([
        ['Endpoint', d.endpointId],
        ['URL', d.url],
        ['Last error', d.lastError ? `${d.lastError}${d.lastStatus ? ` (HTTP ${d.lastStatus})` : ''}` : 'unknown'],
      ]),
      button('Open the endpoint', `${b.baseUrl}/admin/webhooks/${encodeURIComponent(d.endpointId)}`),
    ],
    sample: { endpointId: 'whe_01jd8x0000000000000000000a', url: 'https://hooks.example.com/partnerd', failures: 5, lastError: 'http_status', lastStatus: 502 },
  }),
};
