// The review queue's names, limits and wording, shared by its list, confirmation and the partner
// page's flag history.
import type { Flag } from '../../../modules/fraud/signals';

export const REVIEW = '/admin/review';
export const SHOWN = 100;
export const MAX_BULK = 100;

export const FLAG_LABELS: Record<Flag, { label: string; title: string }> = {
  self_referral: { label: 'Self-referral', title: "The customer's email or network is the partner's own." },
  click_flood: { label: 'Click flood', title: 'The customer also came through clicks over the hourly limit of one network on one link.' },
  bot_click: { label: 'Bot click', title: 'The customer also came through clicks from a known bot or crawler.' },
  duplicate_customer: { label: 'Duplicate customer', title: 'The same billing customer already earned a commission for another partner.' },
  review_amount: { label: 'Large amount', title: 'The commission is above REVIEW_ABOVE.' },
};

export const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;
export const shortHash = (hash: string) => `${hash.slice(0, 12)}…`;
export const when = (d: Date) => d.toISOString().slice(0, 16).replace('T', ' ');
export const flagReason = (flags: Flag[]) => `fraud: ${flags.join(', ')}`;

export type Bulk = 'approve' | 'reverse';
