// Admin settings: attribution model and window, partner self-signup (the API's rules:
// UpdateSettingsBody in modules/settings/model.ts, updateSettings in its service), the signup
// questions (settings-questions.tsx), branding, and the billing providers: which are connected, and
// the webhook address to paste into each provider's dashboard.
import { Elysia } from 'elysia';
import { PROVIDER_GUIDES } from '../../../plugins';
import type { AppContext } from '../../context';
import { providerActivity, type ProviderActivity } from '../../modules/billing/service';
import { UpdateSettingsBody } from '../../modules/settings/model';
import { getSettings, updateSettings, type Settings, type UpdateSettingsInput } from '../../modules/settings/service';
import { CsrfInput, Field, schemaErrors, SelectField, type FormErrors } from '../forms';
import { render, seeOther } from '../render';
import type { AdminPage } from '../session';
import { Badge } from '../ui';
import { AdminLayout, can, Done, type AdminKit } from './kit';
import { QUESTIONS_PATH, readQuestionRows, rowsToQuestions, SignupQuestions, toQuestionRows, withOneMore, type QuestionRow } from './settings-questions';
import { SettingsTabs } from './settings-tabs';
import { TaxSettings, taxSettingsRoutes, toTaxValues, type TaxValues } from './settings-tax';

const PATH = '/admin/settings';
const MODELS = [
  { value: 'last_click', label: 'Last click: the last partner clicked gets all of it' },
  { value: 'linear', label: 'Linear: every partner clicked gets an equal share' },
  { value: 'position', label: 'Position: 40% first, 40% last, 20% shared by the middle' },
];

type Values = { attributionModel: string; attributionWindowDays: string; partnerSignup: string };

/** The branding form's fields as typed (blank clears the optional ones). */
type BrandValues = { programName: string; logoUrl: string; brandColor: string; supportEmail: string };

const BRAND_PATH = `${PATH}/branding`;

const BRAND_ERRORS: Record<string, string> = {
  programName: 'a name of 1 to 100 characters',
  logoUrl: 'an https:// address of an image, or blank for none',
  brandColor: 'a colour as #rrggbb (for example #0f766e), or blank for the default',
  supportEmail: 'an email address, or blank for none',
};

function toBrandValues(s: Settings): BrandValues {
  return { programName: s.programName, logoUrl: s.logoUrl ?? '', brandColor: s.brandColor ?? '', supportEmail: s.supportEmail ?? '' };
}

/** A billing provider as the page shows it. */
type Provider = (typeof PROVIDER_GUIDES)[number] & { connected: boolean; url: string; activity: ProviderActivity | undefined };

async function providers(ctx: AppContext): Promise<Provider[]> {
  const activity = await providerActivity(ctx.sql);
  return PROVIDER_GUIDES.map((g) => ({
    ...g,
    connected: ctx.billingPlugins.some((p) => p.name === g.name && p.receivesWebhooks),
    url: `${ctx.config.baseUrl}/webhooks/${g.name}`,
    activity: activity.get(g.name),
  }));
}

export function settingsRoutes(ctx: AppContext, kit: AdminKit) {
  return new Elysia({ detail: { hide: true } })
    .get(PATH, ({ request, query }) =>
      kit.page(request, async (page) => {
        const [s, billing] = await Promise.all([getSettings(ctx.sql), providers(ctx)]);
        const done = typeof query.done === 'string' ? query.done : undefined;
        return render(
          <SettingsPage page={page} settings={s} values={toValues(s)} brand={toBrandValues(s)} envSignup={ctx.config.partnerSignup} done={done} providers={billing} keyOn={ctx.config.encryption !== null} />,
        );
      }),
    )
    .post(PATH, ({ request, body }) =>
      kit.form(request, body, PATH, async (page, form) => {
        const values: Values = {
          attributionModel: form.attributionModel ?? '',
          attributionWindowDays: (form.attributionWindowDays ?? '').trim(),
          partnerSignup: form.partnerSignup ?? '',
        };
        const input = {
          attributionModel: values.attributionModel,
          attributionWindowDays: /^[0-9]{1,9}$/.test(values.attributionWindowDays) ? Number(values.attributionWindowDays) : values.attributionWindowDays,
          partnerSignup: values.partnerSignup === 'default' ? null : values.partnerSignup,
        };
        const errors: FormErrors = schemaErrors(UpdateSettingsBody, input);
        if (errors.attributionWindowDays) errors.attributionWindowDays = 'a whole number of days, 1 to 3650';
        if (Object.keys(errors).length > 0) {
          const [s, billing] = await Promise.all([getSettings(ctx.sql), providers(ctx)]);
          return render(<SettingsPage page={page} settings={s} values={values} brand={toBrandValues(s)} errors={errors} envSignup={ctx.config.partnerSignup} providers={billing} keyOn={ctx.config.encryption !== null} />, {
            status: 400,
          });
        }
        await updateSettings(ctx.sql, input as UpdateSettingsInput, { encryption: ctx.config.encryption !== null });
        return seeOther(`${PATH}?done=saved`);
      }),
    )
    .post(BRAND_PATH, ({ request, body }) =>
      kit.form(request, body, PATH, async (page, form) => {
        const brand: BrandValues = {
          programName: (form.programName ?? '').trim(),
          logoUrl: (form.logoUrl ?? '').trim(),
          brandColor: (form.brandColor ?? '').trim(),
          supportEmail: (form.supportEmail ?? '').trim(),
        };
        const input = {
          programName: brand.programName,
          logoUrl: brand.logoUrl || null,
          brandColor: brand.brandColor || null,
          supportEmail: brand.supportEmail || null,
        };
        const errors: FormErrors = schemaErrors(UpdateSettingsBody, input);
        for (const field of Object.keys(errors)) if (BRAND_ERRORS[field]) errors[field] = BRAND_ERRORS[field];
        if (Object.keys(errors).length > 0) {
          const [s, billing] = await Promise.all([getSettings(ctx.sql), providers(ctx)]);
          return render(
            <SettingsPage page={page} settings={s} values={toValues(s)} brand={brand} brandErrors={errors} envSignup={ctx.config.partnerSignup} providers={billing} keyOn={ctx.config.encryption !== null} />,
            { status: 400 },
          );
        }
        await updateSettings(ctx.sql, input as UpdateSettingsInput, { encryption: ctx.config.encryption !== null });
        return seeOther(`${PATH}?done=branding#branding`);
      }),
    )
    .post(QUESTIONS_PATH, ({ request, body }) =>
      kit.form(request, body, PATH, async (page, form) => {
        const rows = readQuestionRows(form);
        const redraw = async (questions: { rows: QuestionRow[]; errors: FormErrors }, status: number) => {
          const [s, billing] = await Promise.all([getSettings(ctx.sql), providers(ctx)]);
          const view = <SettingsPage page={page} settings={s} values={toValues(s)} brand={toBrandValues(s)} questions={questions} envSignup={ctx.config.partnerSignup} providers={billing} keyOn={ctx.config.encryption !== null} />;
          return render(view, { status });
        };
        if (form._more !== undefined) return redraw({ rows: withOneMore(rows), errors: {} }, 200);
        const { questions, errors } = rowsToQuestions(rows);
        if (Object.keys(errors).length > 0) return redraw({ rows, errors }, 400);
        await updateSettings(ctx.sql, { applicationQuestions: questions }, { encryption: ctx.config.encryption !== null });
        return seeOther(`${PATH}?done=questions#questions`);
      }),
    )
    .use(
      taxSettingsRoutes(ctx, kit, async (page, tax, status) => {
        const [s, billing] = await Promise.all([getSettings(ctx.sql), providers(ctx)]);
        return render(<SettingsPage page={page} settings={s} values={toValues(s)} brand={toBrandValues(s)} tax={tax} envSignup={ctx.config.partnerSignup} providers={billing} keyOn={ctx.config.encryption !== null} />, { status });
      }),
    );
}

function toValues(s: Settings): Values {
  return { attributionModel: s.attributionModel, attributionWindowDays: String(s.attributionWindowDays), partnerSignup: s.partnerSignup ?? 'default' };
}

function SettingsPage(props: {
  page: AdminPage;
  settings: Settings;
  values: Values;
  errors?: FormErrors;
  brand: BrandValues;
  brandErrors?: FormErrors;
  /** The signup questions as typed, when the form came back; else the saved ones. */
  questions?: { rows: QuestionRow[]; errors: FormErrors };
  envSignup: string;
  done?: string;
  providers: Provider[];
  /** The tax section as typed, when its form came back; else the saved values. */
  tax?: { values: TaxValues; errors: FormErrors };
  /** Whether ENCRYPTION_KEY is set. */
  keyOn: boolean;
}) {
  const e = props.errors ?? {};
  // a role that may not change settings reads them as facts, without the forms
  const write = can(props.page, 'POST', PATH);
  return (
    <AdminLayout page={props.page} title="Settings" current={PATH} scripts={['/assets/copy.js']}>
      <h1>Settings</h1>
      <SettingsTabs page={props.page} current={PATH} />
      <Done
        texts={{
          saved: 'Settings saved. New events use them from now on.',
          branding: 'Branding saved. Emails and partner pages show it from now on.',
          questions: 'Signup questions saved. The sign-up page asks them from now on.',
          tax: 'Tax and legal settings saved.',
        }}
        done={props.done}
      />
      {!write && <SettingsFacts values={props.values} brand={props.brand} questions={props.settings.applicationQuestions.map((q) => q.label)} envSignup={props.envSignup} />}
      {write && (
      <form method="post" action={PATH} novalidate class="narrow">
        <CsrfInput token={props.page.csrf} />
        <SelectField name="attributionModel" label="Attribution model" value={props.values.attributionModel} options={MODELS} error={e.attributionModel} />
        <Field
          name="attributionWindowDays"
          label="Attribution window (days)"
          hint="Clicks older than this when the event arrives earn nothing."
          value={props.values.attributionWindowDays}
          error={e.attributionWindowDays}
          required
        />
        <SelectField
          name="partnerSignup"
          label="Partner self-signup"
          value={props.values.partnerSignup}
          options={[
            { value: 'open', label: 'Open: anyone may sign up at /portal/sign-up' },
            { value: 'review', label: 'Review: anyone may apply; you approve or decline each application' },
            { value: 'closed', label: 'Closed: partners join by invitation only' },
            { value: 'default', label: `Service default (PARTNER_SIGNUP, now ${props.envSignup})` },
          ]}
          error={e.partnerSignup}
        />
        <button type="submit">Save settings</button>
      </form>
      )}
      {write && <SignupQuestions rows={props.questions?.rows ?? toQuestionRows(props.settings.applicationQuestions)} errors={props.questions?.errors ?? {}} csrf={props.page.csrf} />}
      {write && <TaxSettings values={props.tax?.values ?? toTaxValues(props.settings)} errors={props.tax?.errors ?? {}} csrf={props.page.csrf} keyOn={props.keyOn} />}
      {write && <Branding values={props.brand} errors={props.brandErrors ?? {}} csrf={props.page.csrf} />}
      <BillingProviders providers={props.providers} />
    </AdminLayout>
  );
}

/** The settings as a role that may not change them reads them. */
function SettingsFacts(props: { values: { attributionModel: string; attributionWindowDays: string; partnerSignup: string }; brand: BrandValues; questions: string[]; envSignup: string }) {
  const v = props.values;
  const model = MODELS.find((m) => m.value === v.attributionModel)?.label ?? v.attributionModel;
  const signup = v.partnerSignup === 'default' ? `Service default (PARTNER_SIGNUP, now ${props.envSignup})` : `${v.partnerSignup.charAt(0).toUpperCase()}${v.partnerSignup.slice(1)}`;
  return (
    <dl class="facts" id="settings-facts">
      <dt>Attribution model</dt>
      <dd safe>{model}</dd>
      <dt>Attribution window</dt>
      <dd safe>{`${v.attributionWindowDays} days`}</dd>
      <dt>Partner self-signup</dt>
      <dd safe>{signup}</dd>
      <dt>Signup questions</dt>
      <dd safe>{props.questions.length === 0 ? 'None' : props.questions.join('; ')}</dd>
      <dt>Program name</dt>
      <dd safe>{props.brand.programName}</dd>
      <dt>Support email</dt>
      <dd safe>{props.brand.supportEmail || 'Not set'}</dd>
    </dl>
  );
}

/** The program's name, logo, colour and support address: every email and partner page shows them. */
function Branding(props: { values: BrandValues; errors: FormErrors; csrf: string }) {
  const e = props.errors;
  return (
    <section aria-labelledby="branding-heading" id="branding">
      <h2 id="branding-heading">Branding</h2>
      <p class="hint">
        Partners see these in every email and on the portal, sign-in and sign-up pages. <a href="/admin/emails">Preview the emails</a>.
      </p>
      <form method="post" action={BRAND_PATH} novalidate class="narrow">
        <CsrfInput token={props.csrf} />
        <Field name="programName" label="Program name" value={props.values.programName} error={e.programName} required />
        <Field name="logoUrl" label="Logo address" type="url" hint="An https:// address of an image; blank: the name alone." value={props.values.logoUrl} error={e.logoUrl} />
        <Field name="brandColor" label="Brand colour" hint="#rrggbb. Pages darken it if needed so text stays readable." value={props.values.brandColor} error={e.brandColor} placeholder="#0b5fcc" />
        <Field name="supportEmail" label="Support email" type="email" hint="Shown in every email as the address for questions." value={props.values.supportEmail} error={e.supportEmail} />
        <button type="submit">Save branding</button>
      </form>
    </section>
  );
}

const count = (n: number, one: string, many: string) => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;
const when = (d: Date) => `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;

/** One card per provider: connected or not, the address to paste, and what to select there. */
function BillingProviders(props: { providers: Provider[] }) {
  return (
    <section aria-labelledby="billing-heading" id="billing">
      <h2 id="billing-heading">Billing providers</h2>
      <p class="hint">
        Sales, refunds and disputes arrive from your billing provider without code. A provider is connected when its secret is set in the
        service's environment; set it and restart. Setup step by step: docs/plugins.md.
      </p>
      <ul class="providers">
        {props.providers.map((p) => (
          <li class="provider" id={`provider-${p.name}`}>
            <h3>
              <span safe>{p.label}</span>{' '}
              {p.connected ? (
                <Badge tone="green" label="Connected" title={`${p.variable} is set: POST /webhooks/${p.name} is open`} />
              ) : (
                <Badge tone="grey" label="Not connected" title={`Set ${p.variable} to connect ${p.label}`} />
              )}
            </h3>
            <div class="copy">
              <label class="vh" for={`hook-${p.name}`} safe>
                {`${p.label} webhook address`}
              </label>
              <input id={`hook-${p.name}`} value={p.url} readonly />
              <button type="button" class="secondary" data-copy={`#hook-${p.name}`} aria-label={`Copy the ${p.label} webhook address`}>
                Copy
              </button>
            </div>
            <dl class="facts">
              <dt safe>{`In ${p.label}`}</dt>
              <dd safe>{p.where}</dd>
              <dt>Events to send</dt>
              <dd>
                {p.events.map((e, i) => (
                  <>
                    {i > 0 && ', '}
                    <code safe>{e}</code>
                  </>
                ))}
              </dd>
              <dt>Secret</dt>
              <dd>
                <code safe>{p.variable}</code>
                {p.connected ? ' is set.' : ' is not set.'}
              </dd>
              <dt>Received</dt>
              <dd>
                {p.activity && p.activity.conversions + p.activity.refunds > 0
                  ? `${count(p.activity.conversions, 'conversion', 'conversions')}${p.activity.lastAt ? `, the latest ${when(p.activity.lastAt)}` : ''}; ${count(p.activity.refunds, 'refund or dispute', 'refunds or disputes')}`
                  : 'Nothing yet.'}
              </dd>
            </dl>
          </li>
        ))}
      </ul>
    </section>
  );
}
