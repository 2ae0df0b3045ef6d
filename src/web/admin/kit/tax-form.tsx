// A partner's tax form as the admin pages show it (the partner's page, the 1099 page): none, the
// valid form with the day it was signed, or expired. Never more of a TIN than its last four digits.
import type { TaxFormStatus } from '../../../modules/tax/service';
import { day } from '../../layout';
import { Badge } from '../../ui';

const FORM_NAMES = { w9: 'W-9', w8ben: 'W-8BEN', w8bene: 'W-8BEN-E' } as const;

export const formName = (form: keyof typeof FORM_NAMES) => FORM_NAMES[form];

/** The status in words: "W-9 signed 2026-11-27, SSN ending in 6789", "W-8BEN expired 2029-12-31", "None on file". */
export function taxFormText(status: TaxFormStatus): string {
  if (!status) return 'None on file';
  const signed = `${formName(status.form)} signed ${day(status.signedAt.toISOString())}`;
  const last4 = status.tinLast4 ? `, TIN ending in ${status.tinLast4}` : '';
  if (!status.valid) return `${formName(status.form)} expired ${status.validUntil ?? ''}: a new form is needed`.replace(' :', ':');
  return `${signed}${last4}${status.validUntil ? `, valid until ${status.validUntil}` : ''}`;
}

/** The status as a badge: Valid (green), Expired (red), None (grey). */
export function TaxFormBadge(props: { status: TaxFormStatus; id?: string }) {
  const s = props.status;
  const title = taxFormText(s);
  if (!s) return <Badge tone="grey" label="None" title={title} id={props.id} />;
  return s.valid ? <Badge tone="green" label={`${formName(s.form)} valid`} title={title} id={props.id} /> : <Badge tone="red" label={`${formName(s.form)} expired`} title={title} id={props.id} />;
}
