// Settings > Tax and legal: the taxForms setting (off / collect / require) and the program's legal
// details printed on self-billing invoices (legalName, legalAddress, vatId). The same workflow as
// PATCH /v1/settings: updateSettings refuses collect and require without ENCRYPTION_KEY, and the
// refusal shows beside the field. A plain form: it works without JavaScript.
import { Elysia } from 'elysia';
import type { AppContext } from '../../context';
import { UpdateSettingsBody } from '../../modules/settings/model';
import { updateSettings, type Settings, type UpdateSettingsInput } from '../../modules/settings/service';
import { CsrfInput, Field, formErrors, schemaErrors, SelectField, type FormErrors } from '../forms';
import { seeOther } from '../render';
import type { AdminPage } from '../session';
import type { AdminKit } from './kit';

export const TAX_SETTINGS_PATH = '/admin/settings/tax';

/** The section's fields as typed (blank clears the legal details). */
export type TaxValues = { taxForms: string; legalName: string; legalAddress: string; vatId: string };

const TAX_FIELDS = ['taxForms', 'legalName', 'legalAddress', 'vatId'];
const TAX_ERRORS: Record<string, string> = {
  taxForms: 'choose off, collect or require',
  legalName: 'at most 200 characters, or blank for none',
  legalAddress: 'at most 1,000 characters, or blank for none',
  vatId: 'a VAT id with its country prefix, such as DE123456789, or blank for none',
};

export function toTaxValues(s: Settings): TaxValues {
  return { taxForms: s.taxForms, legalName: s.legalName ?? '', legalAddress: s.legalAddress ?? '', vatId: s.vatId ?? '' };
}

/** The redraw of the whole settings page with this section's values and errors (settings.tsx). */
export type TaxRedraw = (page: AdminPage, tax: { values: TaxValues; errors: FormErrors }, status: number) => Promise<Response>;

export function taxSettingsRoutes(ctx: AppContext, kit: AdminKit, redraw: TaxRedraw) {
  return new Elysia({ detail: { hide: true } }).post(TAX_SETTINGS_PATH, ({ request, body }) =>
    kit.form(request, body, '/admin/settings', async (page, form) => {
      const values: TaxValues = {
        taxForms: form.taxForms ?? '',
        legalName: (form.legalName ?? '').trim(),
        legalAddress: (form.legalAddress ?? '').replace(/\r\n/g, '\n').trim(),
        vatId: (form.vatId ?? '').trim().toUpperCase(),
      };
      const input = { taxForms: values.taxForms, legalName: values.legalName || null, legalAddress: values.legalAddress || null, vatId: values.vatId || null };
      const errors: FormErrors = schemaErrors(UpdateSettingsBody, input);
      for (const field of Object.keys(errors)) if (TAX_ERRORS[field]) errors[field] = TAX_ERRORS[field];
      if (Object.keys(errors).length > 0) return redraw(page, { values, errors }, 400);
      try {
        await updateSettings(ctx.sql, input as UpdateSettingsInput, { encryption: ctx.config.encryption !== null });
      } catch (error) {
        const refused = formErrors(error, TAX_FIELDS);
        if (!refused) throw error;
        return redraw(page, { values, errors: refused }, 400);
      }
      return seeOther('/admin/settings?done=tax#tax');
    }),
  );
}

const MODES = [
  { value: 'off', label: 'Off: partners are not asked' },
  { value: 'collect', label: 'Collect: the portal asks for a form' },
  { value: 'require', label: 'Require: payouts wait for a valid form' },
];

/** The section: taxForms and the legal details, errors beside their fields. */
export function TaxSettings(props: { values: TaxValues; errors: FormErrors; csrf: string; keyOn: boolean }) {
  const e = props.errors;
  const v = props.values;
  return (
    <section aria-labelledby="tax-heading" id="tax">
      <h2 id="tax-heading">Tax and legal</h2>
      <p class="hint">
        Collect: the portal asks partners for a W-9, W-8BEN or W-8BEN-E. Require: as collect, and a payout run holds the payouts of partners
        without a valid form. Forms are kept encrypted with <code>ENCRYPTION_KEY</code>, which is{' '}
        {props.keyOn ? 'set' : 'not set: collect and require are refused until it is'}. The legal details are printed on every self-billing
        invoice. <a href="/admin/tax">1099-NEC export</a>.
      </p>
      {!!e._form && (
        <p class="notice error" role="alert" safe>
          {e._form}
        </p>
      )}
      <form method="post" action={TAX_SETTINGS_PATH} novalidate class="narrow" id="tax-settings">
        <CsrfInput token={props.csrf} />
        <SelectField name="taxForms" label="Tax forms" value={v.taxForms} options={MODES} error={e.taxForms} />
        <Field name="legalName" label="Legal name" hint="Your company's registered name; blank: the program name." value={v.legalName} error={e.legalName} autocomplete="organization" />
        <div class={e.legalAddress ? 'field invalid' : 'field'}>
          <label for="f-legalAddress">Legal address</label>
          <small id="f-legalAddress-hint">As lines: street, postal code and city, country.</small>
          <textarea
            id="f-legalAddress"
            name="legalAddress"
            rows="4"
            aria-invalid={e.legalAddress ? 'true' : undefined}
            aria-describedby={e.legalAddress ? 'f-legalAddress-hint f-legalAddress-error' : 'f-legalAddress-hint'}
            safe
          >
            {v.legalAddress}
          </textarea>
          {!!e.legalAddress && (
            <p class="error" id="f-legalAddress-error" safe>
              {e.legalAddress}
            </p>
          )}
        </div>
        <Field name="vatId" label="VAT id" hint="With its country prefix, e.g. DE123456789; blank: none." value={v.vatId} error={e.vatId} />
        <button type="submit">Save tax and legal</button>
      </form>
    </section>
  );
}
