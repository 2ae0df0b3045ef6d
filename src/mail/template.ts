// The shape of an email template: a single source (subject and body blocks) that render.ts writes as
// both HTML and plain text; `sample` feeds the admin previews.
import type { Tx } from '../db';
import type { Block, Brand } from './render';

/** The emails a partner can turn off (partners.notifications; a missing key means on). */
export const NOTIFICATION_KINDS = ['commissionAccrued', 'commissionApproved', 'payoutSent', 'monthlyStatement'] as const;
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];
export type Notifications = Record<NotificationKind, boolean>;

export type EmailTemplate<D = any> = {
  /** What the previews page calls it. */
  title: string;
  audience: 'partner' | 'admin';
  /** The partner's switch that turns this email off (partner emails only). */
  notification?: NotificationKind;
  /** Completes the stored data when the email is sent (e.g. the commissions a payout paid). */
  load?(sql: Tx, stored: any): Promise<D>;
  subject(data: D, brand: Brand): string;
  body(data: D, brand: Brand): Block[];
  /** Data for the preview (what load would answer). */
  sample: D;
};

/** Types a template's data from its sample. */
export function defineTemplate<D>(template: EmailTemplate<D>): EmailTemplate<D> {
  return template;
}
