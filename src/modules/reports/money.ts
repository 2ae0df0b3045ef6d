// Reads behind the admin money pages: commissions, payouts and conversion events as sortable, counted
// pages and CSV exports; the totals a bulk action or a payout run is about to move (its preview).
// Sorting goes through fixed allow-lists (SORTS); every amount stays in minor units (bigint).
// One file per list: commission-list.ts, payout-list.ts, event-list.ts; what they share: money-shared.ts.
export * from './money-shared';
export * from './commission-list';
export * from './payout-list';
export * from './event-list';
