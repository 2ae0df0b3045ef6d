// What partners read for an event type: people's words, never the internal name ("invoice_paid",
// "recruit_override"). One map for the portal's lists and the emails.

const LABELS: Record<string, string> = {
  signup: 'Signup',
  trial_started: 'Trial started',
  subscription_created: 'New subscription',
  invoice_paid: 'Paid invoice',
  // a recruiter's share of what a partner it recruited earned (two-tier rewards)
  recruit_override: 'Recruit bonus',
};

/**
 * The readable label of an event type: a standard type's own words; a custom name with its
 * separators as spaces and a capital first letter ("demo_booked" -> "Demo booked").
 */
export function eventLabel(type: string): string {
  const known = LABELS[type];
  if (known) return known;
  const words = type.replace(/[_.\-:]+/g, ' ').replace(/\s+/g, ' ').trim();
  if (words === '') return 'Sale';
  return words[0]!.toUpperCase() + words.slice(1);
}
