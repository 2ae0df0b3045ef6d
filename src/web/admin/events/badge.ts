// What attribution made of an event, as a badge: the list, the event page and its empty states.
import type { Tone } from '../../ui';

/** What attribution made of an event, as a badge that says what it means. */
export function attributionBadge(status: string): { tone: Tone; label: string; title: string } {
  switch (status) {
    case 'attributed':
      return { tone: 'green', label: 'Attributed', title: 'Attributed: credited to the partners whose clicks led to it' };
    case 'no_identity':
      return { tone: 'grey', label: 'No identity', title: 'Not attributed: this user was never tied to a click (identify was not called)' };
    case 'no_click':
      return { tone: 'grey', label: 'No click', title: 'Not attributed: the user has no partner click' };
    case 'outside_window':
      return { tone: 'amber', label: 'Outside window', title: "Not attributed: the user's clicks are older than the attribution window" };
    default:
      return { tone: 'grey', label: status, title: status };
  }
}
