// What the pages' query and form fields are called on screen, for messages about them.

/** What the pages' query and form fields are called on screen. */
const FIELD_WORDS: Record<string, string> = {
  q: 'Search',
  partner: 'Partner',
  partnerId: 'Partner',
  campaign: 'Campaign',
  campaignId: 'Campaign',
  email: 'Email',
  from: 'From',
  to: 'To',
  status: 'Status',
  cursor: 'Page',
  limit: 'Rows per page',
  sort: 'Sort by',
  dir: 'Order',
  range: 'Date range',
};

/** A field's name for people: its on-screen word, else the name spaced out ("payoutEmail" -> "Payout email"). */
export function fieldWords(field: string): string {
  const known = FIELD_WORDS[field];
  if (known) return known;
  const spaced = field.replace(/([a-z])([A-Z])/g, '$1 $2').replace(/[._]+/g, ' ').toLowerCase().trim();
  return spaced ? spaced[0]!.toUpperCase() + spaced.slice(1) : 'A value';
}

