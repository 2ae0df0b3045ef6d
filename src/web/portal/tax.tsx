// The portal's "Tax form" page (/portal/tax): two questions pick the W-9, W-8BEN or W-8BEN-E (a
// plain GET form, so it works without JavaScript), then only that form's fields, signed with a
// typed name under the perjury statement. The rules are the API's (modules/tax/validate.ts).
import { Elysia } from 'elysia';
import type { AppContext } from '../../context';
import { AppError } from '../../lib/errors';
import { refuseCrossSite } from '../../modules/auth/plugin';
import { clientAddress } from '../../modules/links/address';
import { COUNTRY_CODES, countryName } from '../../modules/tax/countries';
import { TAX_CLASSIFICATIONS, type PutTaxProfileInput, type TaxFormKind, type TaxProfile } from '../../modules/tax/model';
import { readTaxProfile, saveTaxProfile, taxFormsSetting } from '../../modules/tax/service';
import { refuseBadToken } from '../csrf';
import { CsrfInput, Field, formErrors, formFields, SelectField, type FormErrors } from '../forms';
import { Notice } from '../layout';
import { render, seeOther } from '../render';
import { guardPartner, type PartnerPage } from '../session';
import { RefusedPage, RevokedPage } from './pages';
import { PortalLayout } from './shell';

const PATH = '/portal/tax';
const TITLES: Record<TaxFormKind, string> = { w9: 'Form W-9 (US person)', w8ben: 'Form W-8BEN (individual outside the US)', w8bene: 'Form W-8BEN-E (organisation outside the US)' };
const PERJURY: Record<TaxFormKind, string> = {
  w9: 'Under penalties of perjury, I certify that the number shown on this form is my correct taxpayer identification number, that I am not subject to backup withholding, and that I am a U.S. citizen or other U.S. person.',
  w8ben: 'Under penalties of perjury, I declare that I have examined the information on this form and to the best of my knowledge and belief it is true, correct, and complete, and that I am the beneficial owner of the income and not a U.S. person.',
  w8bene: 'Under penalties of perjury, I declare that I have examined the information on this form and to the best of my knowledge and belief it is true, correct, and complete, and that I am authorized to sign for the entity, which is the beneficial owner of the income and not a U.S. person.',
};
const FIELDS = ['legalName', 'businessName', 'taxClassification', 'tinType', 'tin', 'citizenship', 'dateOfBirth', 'treatyCountry', 'incorporationCountry', 'foreignTin', 'vatId', 'address', 'signature'];
const COUNTRIES = COUNTRY_CODES.map((code) => ({ value: code, label: countryName(code) })).sort((a, b) => a.label.localeCompare(b.label));

/** The form a person's two answers call for. */
export function formFor(us: string | undefined, kind: string | undefined): TaxFormKind | null {
  if (us === 'yes') return 'w9';
  if (us === 'no' && kind === 'individual') return 'w8ben';
  if (us === 'no' && kind === 'entity') return 'w8bene';
  return null;
}

/** The posted fields as the API's body (blank optional fields left out). */
function bodyOf(form: TaxFormKind, f: Record<string, string>): PutTaxProfileInput {
  const opt = (name: string) => (f[name]?.trim() ? f[name]!.trim() : undefined);
  const body: Record<string, unknown> = {
    form,
    legalName: f.legalName ?? '',
    address: { line1: f.line1 ?? '', line2: opt('line2'), city: f.city ?? '', region: opt('region'), postalCode: opt('postalCode'), country: form === 'w9' ? 'US' : (f.country ?? '') },
    vatId: opt('vatId'),
    signature: { name: f.signatureName ?? '', agreed: f.agreed === 'yes' },
  };
  if (form === 'w9') Object.assign(body, { businessName: opt('businessName'), taxClassification: opt('taxClassification'), tinType: opt('tinType'), tin: opt('tin') });
  if (form === 'w8ben') Object.assign(body, { citizenship: opt('citizenship'), dateOfBirth: opt('dateOfBirth'), treatyCountry: opt('treatyCountry'), foreignTin: opt('foreignTin') });
  if (form === 'w8bene') Object.assign(body, { incorporationCountry: opt('incorporationCountry'), foreignTin: opt('foreignTin') });
  return JSON.parse(JSON.stringify(body)) as PutTaxProfileInput;
}

/** The form's errors keyed by the page's field names (address.city -> city, signature.agreed -> agreed). */
function pageErrors(error: unknown): FormErrors | null {
  if (!(error instanceof AppError) || !Array.isArray(error.details)) return formErrors(error, FIELDS);
  const out: FormErrors = {};
  for (const d of error.details as { field: string; message: string }[]) {
    const name = d.field === 'signature.name' ? 'signatureName' : d.field.split('.').pop()!;
    out[name] ??= d.message;
  }
  return out;
}

export function taxPortalRoutes(ctx: AppContext) {
  const withPartner = async (request: Request, view: (page: PartnerPage) => Response | Promise<Response>) => {
    const guard = await guardPartner(ctx, request);
    if (guard.kind === 'signed-out') return seeOther('/portal/sign-in');
    if (guard.kind === 'revoked') return render(<RevokedPage reason={guard.reason} />, { status: 403 });
    return view(guard.page);
  };
  const show = async (p: PartnerPage, extra: { form: TaxFormKind | null; values?: Record<string, string>; errors?: FormErrors; done?: boolean }, status = 200) => {
    const [profile, setting] = await Promise.all([readTaxProfile(ctx.sql, p.partner.id), taxFormsSetting(ctx.sql)]);
    return render(<TaxPage page={p} profile={profile} required={setting === 'require'} keyOn={ctx.config.encryption !== null} {...extra} />, { status });
  };
  return new Elysia({ detail: { hide: true } })
    .get(PATH, ({ request, query }) =>
      withPartner(request, (p) => {
        const q = query as Record<string, string>;
        const form = (['w9', 'w8ben', 'w8bene'] as const).find((f) => f === q.form) ?? formFor(q.us, q.kind);
        return show(p, { form, done: q.done === 'saved' });
      }),
    )
    .post(PATH, ({ request, body }) =>
      withPartner(request, async (p) => {
        const f = formFields(body);
        try {
          refuseCrossSite(ctx, request);
          refuseBadToken(p.sessionToken, f);
        } catch (error) {
          if (!(error instanceof AppError)) throw error;
          return render(<RefusedPage message={error.message} back={PATH} />, { status: error.status });
        }
        const form = (['w9', 'w8ben', 'w8bene'] as const).find((k) => k === f.form);
        if (!form) return show(p, { form: null }, 400);
        if (!ctx.config.encryption) return show(p, { form, values: f, errors: { _form: 'Tax forms cannot be stored yet: the program has not set its encryption key. Please tell the program.' } }, 409);
        try {
          await saveTaxProfile(ctx.sql, { partnerId: p.partner.id, body: bodyOf(form, f), ring: ctx.config.encryption, ip: clientAddress(request, ctx.config.trustProxy, ctx.http.server) });
        } catch (error) {
          const errors = pageErrors(error);
          if (!errors) throw error;
          return show(p, { form, values: f, errors }, 400);
        }
        return seeOther(`${PATH}?done=saved`);
      }),
    );
}

function OnFile(props: { profile: TaxProfile }) {
  const t = props.profile;
  return (
    <section id="on-file" aria-labelledby="on-file-heading">
      <h2 id="on-file-heading">Your form on file</h2>
      <dl class="facts">
        <dt>Form</dt>
        <dd safe>{TITLES[t.form]}</dd>
        <dt>Name</dt>
        <dd safe>{t.legalName}</dd>
        {!!t.tinLast4 && (
          <>
            <dt>{t.tinType === 'ein' ? 'EIN' : 'SSN'}</dt>
            <dd safe>{`ending in ${t.tinLast4}`}</dd>
          </>
        )}
        <dt>Signed</dt>
        <dd safe>{`${t.signedAt.slice(0, 10)} by ${t.signatureName}`}</dd>
        <dt>Status</dt>
        <dd>{t.valid ? (t.validUntil ? `Valid until ${t.validUntil}` : 'Valid') : 'Expired: please fill in a new form'}</dd>
      </dl>
    </section>
  );
}

function TaxPage(props: { page: PartnerPage; profile: TaxProfile | null; required: boolean; keyOn: boolean; form: TaxFormKind | null; values?: Record<string, string>; errors?: FormErrors; done?: boolean }) {
  const { profile, form } = props;
  const needs = !profile || !profile.valid;
  return (
    <PortalLayout page={props.page} title="Tax form" current="/portal/tax" scripts={['/assets/tax-form.js']}>
      <div class="narrow">
        <h1>Tax form</h1>
        {props.done && <Notice kind="ok" text="Thank you: your tax form is on file." />}
        {needs && (
          <p id="tax-needed" class={props.required ? 'notice error' : 'hint'}>
            {props.required
              ? 'The program needs a valid tax form from you before it can pay you: your payouts wait until you fill one in below.'
              : 'The program asks its partners for a tax form. It takes a few minutes.'}
          </p>
        )}
        {!!profile && <OnFile profile={profile} />}
        {!!props.errors?._form && <Notice kind="error" text={props.errors._form} />}
        {form ? <FormFields {...props} form={form} /> : <Questions replacing={!!profile} />}
      </div>
    </PortalLayout>
  );
}

/** The two questions that decide which form: a GET form, so no script is needed. */
function Questions(props: { replacing: boolean }) {
  return (
    <form method="get" action={PATH} id="tax-questions">
      <h2>{props.replacing ? 'Replace your form' : 'Which form is yours?'}</h2>
      <fieldset>
        <legend>Are you a US citizen, US resident or US company (a "US person")?</legend>
        <label><input type="radio" name="us" value="yes" required /> Yes</label>
        <label><input type="radio" name="us" value="no" /> No</label>
      </fieldset>
      <fieldset>
        <legend>If not: are you paid as an individual or as an organisation?</legend>
        <label><input type="radio" name="kind" value="individual" /> An individual</label>
        <label><input type="radio" name="kind" value="entity" /> A company or other organisation</label>
      </fieldset>
      <button type="submit">Continue</button>
    </form>
  );
}

function FormFields(props: { page: PartnerPage; form: TaxFormKind; values?: Record<string, string>; errors?: FormErrors; profile: TaxProfile | null }) {
  const v = props.values ?? {};
  const e = props.errors ?? {};
  const form = props.form;
  return (
    <form method="post" action={PATH} id="tax-form" novalidate data-form={form}>
      <h2 safe>{TITLES[form]}</h2>
      <p class="hint"><a href={PATH}>Not your form? Answer the questions again.</a></p>
      <CsrfInput token={props.page.csrf} />
      <input type="hidden" name="form" value={form} />
      <Field name="legalName" label={form === 'w8bene' ? 'Name of the organisation' : 'Your name, as on your tax return'} value={v.legalName} error={e.legalName} required autocomplete="name" />
      {form === 'w9' && (
        <>
          <Field name="businessName" label="Business name (if different)" value={v.businessName} error={e.businessName} />
          <SelectField name="taxClassification" label="Federal tax classification" value={v.taxClassification} error={e.taxClassification}
            options={[{ value: '', label: 'Choose…' }, ...TAX_CLASSIFICATIONS.map((c) => ({ value: c, label: c.replace('_', ' ').replace('trust estate', 'trust / estate').replace('llc', 'LLC') }))]} />
          <SelectField name="tinType" label="Taxpayer identification number" value={v.tinType} error={e.tinType} options={[{ value: 'ssn', label: 'Social Security number (SSN)' }, { value: 'ein', label: 'Employer identification number (EIN)' }]} />
          <Field name="tin" label="SSN or EIN" hint="SSN: 123-45-6789. EIN: 12-3456789. Kept encrypted; only its last four digits are shown." value="" error={e.tin} required autocomplete="off" />
        </>
      )}
      {form === 'w8ben' && (
        <>
          <SelectField name="citizenship" label="Country of citizenship" value={v.citizenship} error={e.citizenship} options={[{ value: '', label: 'Choose…' }, ...COUNTRIES]} />
          <Field name="dateOfBirth" label="Date of birth" type="date" hint="YYYY-MM-DD. Kept encrypted." value="" error={e.dateOfBirth} required />
          <SelectField name="treatyCountry" label="Treaty country (if you claim a tax treaty)" value={v.treatyCountry} error={e.treatyCountry} options={[{ value: '', label: 'None' }, ...COUNTRIES]} />
        </>
      )}
      {form === 'w8bene' && <SelectField name="incorporationCountry" label="Country of incorporation" value={v.incorporationCountry} error={e.incorporationCountry} options={[{ value: '', label: 'Choose…' }, ...COUNTRIES]} />}
      {form !== 'w9' && <Field name="foreignTin" label="Tax id in your country (optional)" hint="Kept encrypted." value="" error={e.foreignTin} autocomplete="off" />}
      <fieldset>
        <legend>{form === 'w9' ? 'Address' : 'Permanent residence address'}</legend>
        <Field name="line1" label="Street and number" value={v.line1} error={e.line1} required autocomplete="address-line1" />
        <Field name="line2" label="Apartment, suite (optional)" value={v.line2} error={e.line2} autocomplete="address-line2" />
        <Field name="city" label="City" value={v.city} error={e.city} required autocomplete="address-level2" />
        <Field name="region" label={form === 'w9' ? 'State (two letters)' : 'Region (optional)'} value={v.region} error={e.region} autocomplete="address-level1" />
        <Field name="postalCode" label={form === 'w9' ? 'ZIP code' : 'Postal code'} value={v.postalCode} error={e.postalCode} autocomplete="postal-code" />
        {form !== 'w9' && <SelectField name="country" label="Country" value={v.country} error={e.country} options={[{ value: '', label: 'Choose…' }, ...COUNTRIES.filter((c) => c.value !== 'US')]} />}
      </fieldset>
      <Field name="vatId" label="VAT id (optional)" hint="For invoices: your VAT id with its country prefix, e.g. DE123456789." value={v.vatId} error={e.vatId} />
      <fieldset>
        <legend>Signature</legend>
        <p id="perjury" safe>{PERJURY[form]}</p>
        <label class={e.agreed ? 'invalid' : ''}><input type="checkbox" name="agreed" value="yes" /> I agree to the statement above.</label>
        {!!e.agreed && <p class="error" safe>{e.agreed}</p>}
        <Field name="signatureName" label="Type your full name to sign" value={v.signatureName} error={e.signatureName} required autocomplete="name" />
      </fieldset>
      <button type="submit">{props.profile ? 'Sign and replace my form' : 'Sign and submit'}</button>
    </form>
  );
}
