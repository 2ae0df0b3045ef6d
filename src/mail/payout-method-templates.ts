// The email a partner gets whenever their payout method changes: to their address and, when the
// money used to go to another one, to that one too. It has no switch: a stolen session must not
// redirect money silently.
import { button, facts, heading, p } from './render';
import { defineTemplate } from './template';

type MethodChanged = { partnerName: string; before: string; after: string; heldUntil: string | null };

export const payoutMethodTemplates = {
  payout_method_changed: defineTemplate<MethodChanged>({
    title: 'Payout method changed',
    audience: 'partner',
    subject: (_d, b) => `Your ${b.programName} payout method changed`,
    body: (d, b) => [
      heading('Your payout method changed'),
      p(`Hi ${d.partnerName}, how you are paid changed. If you did not do this, sign in and change it back, and tell us at once.`),
      facts([
        ['Before', d.before],
        ['Now', d.after],
        ...(d.heldUntil ? ([['Payouts held until', `${d.heldUntil.slice(0, 16).replace('T', ' ')} UTC`]] as [string, string][]) : []),
      ]),
      button('See your payout settings', `${b.baseUrl}/portal/payouts`),
    ],
    sample: { partnerName: 'Ada Lovelace', before: 'PayPal (ada@example.com)', after: 'Wise (ada.lovelace@example.org)', heldUntil: '2026-11-28T09:00:00.000Z' },
  }),
};
