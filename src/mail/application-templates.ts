// Emails about an application (partnerSignup = review). Approval needs none of its own: the invite
// is the approval, sent at once like every magic link.
import { facts, heading, p } from './render';
import { defineTemplate } from './template';

type Declined = { name: string; reason: string };

export const applicationTemplates = {
  application_declined: defineTemplate<Declined>({
    title: 'Application declined',
    audience: 'partner',
    subject: (_d, b) => `Your application to ${b.programName}`,
    body: (d, b) => [
      heading('About your application'),
      p(`Hi ${d.name}, thank you for applying to ${b.programName}. We have decided not to accept your application.`),
      facts([['Reason given', d.reason]]),
      p(b.supportEmail ? `If you think we got it wrong, write to ${b.supportEmail}.` : 'You cannot sign in with this address.'),
    ],
    sample: { name: 'Ada Lovelace', reason: 'Coupon and cashback sites are not part of this program.' },
  }),
};
