// Admin settings: attribution model and window, partner self-signup. The rules are the API's
// (UpdateSettingsBody in modules/settings/model.ts, updateSettings in its service).
import { Elysia } from 'elysia';
import type { AppContext } from '../../context';
import { UpdateSettingsBody } from '../../modules/settings/model';
import { getSettings, updateSettings, type Settings, type UpdateSettingsInput } from '../../modules/settings/service';
import { CsrfInput, Field, schemaErrors, SelectField, type FormErrors } from '../forms';
import { render, seeOther } from '../render';
import type { AdminPage } from '../session';
import { AdminLayout, Done, type AdminKit } from './kit';

const PATH = '/admin/settings';
const MODELS = [
  { value: 'last_click', label: 'Last click: the last partner clicked gets all of it' },
  { value: 'linear', label: 'Linear: every partner clicked gets an equal share' },
  { value: 'position', label: 'Position: 40% first, 40% last, 20% shared by the middle' },
];

type Values = { attributionModel: string; attributionWindowDays: string; partnerSignup: string };

export function settingsRoutes(ctx: AppContext, kit: AdminKit) {
  return new Elysia({ detail: { hide: true } })
    .get(PATH, ({ request, query }) =>
      kit.page(request, async (page) => {
        const s = await getSettings(ctx.sql);
        const done = typeof query.done === 'string' ? query.done : undefined;
        return render(<SettingsPage page={page} settings={s} values={toValues(s)} envSignup={ctx.config.partnerSignup} done={done} />);
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
          const s = await getSettings(ctx.sql);
          return render(<SettingsPage page={page} settings={s} values={values} errors={errors} envSignup={ctx.config.partnerSignup} />, { status: 400 });
        }
        await updateSettings(ctx.sql, input as UpdateSettingsInput);
        return seeOther(`${PATH}?done=saved`);
      }),
    );
}

function toValues(s: Settings): Values {
  return { attributionModel: s.attributionModel, attributionWindowDays: String(s.attributionWindowDays), partnerSignup: s.partnerSignup ?? 'default' };
}

function SettingsPage(props: { page: AdminPage; settings: Settings; values: Values; errors?: FormErrors; envSignup: string; done?: string }) {
  const e = props.errors ?? {};
  return (
    <AdminLayout page={props.page} title="Settings" current={PATH}>
      <h1>Settings</h1>
      <Done texts={{ saved: 'Settings saved. New events use them from now on.' }} done={props.done} />
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
            { value: 'closed', label: 'Closed: partners join by invitation only' },
            { value: 'default', label: `Service default (PARTNER_SIGNUP, now ${props.envSignup})` },
          ]}
          error={e.partnerSignup}
        />
        <button type="submit">Save settings</button>
      </form>
    </AdminLayout>
  );
}
