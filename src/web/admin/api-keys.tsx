// Admin API keys: list the active keys (never the keys themselves), create a scoped or publishable
// key (shown once), revoke. Rules: modules/auth/keys.ts.
import { Elysia, t } from 'elysia';
import type { AppContext } from '../../context';
import { AppError } from '../../lib/errors';
import { createApiKey, listApiKeys, revokeApiKey, throwIfBadScopes, type ApiKeyRecord } from '../../modules/auth/keys';
import { SCOPES, type Scope } from '../../modules/auth/scopes';
import { CsrfInput, Field, formErrors, formList, SelectField, type FormErrors } from '../forms';
import { Notice } from '../layout';
import { render, seeOther } from '../render';
import type { AdminPage } from '../session';
import { AdminLayout, day, Done, type AdminKit } from './kit';
import { MenuButton, menuId, RowMenu, Trunc } from '../ui';
import { ChoicesFieldset } from '../kit/choices';

const LIST = '/admin/api-keys';
type Values = { name: string; kind: string; scopes: string[] };

export function apiKeyRoutes(ctx: AppContext, kit: AdminKit) {
  async function listView(page: AdminPage, input: { values?: Values; errors?: FormErrors; created?: { name: string; key: string }; done?: string; error?: string }) {
    const keys = (await listApiKeys(ctx.sql, { limit: 200 })).slice(0, 200);
    return (<ApiKeysPage page={page} keys={keys} {...input} />) as string;
  }

  return new Elysia({ detail: { hide: true } })
    .get(
      LIST,
      ({ request, query }) => kit.page(request, async (page) => render(await listView(page, { done: query.done }))),
      { query: t.Object({ done: t.Optional(t.String({ maxLength: 20 })) }) },
    )
    .post(LIST, ({ request, body }) =>
      kit.form(request, body, LIST, async (page, form) => {
        const values: Values = { name: (form.name ?? '').trim(), kind: form.kind === 'publishable' ? 'publishable' : 'scoped', scopes: formList(body, 'scopes') };
        const errors: FormErrors = {};
        if (values.name === '') errors.name = 'required';
        else if (values.name.length > 200) errors.name = 'at most 200 characters';
        const unknown = values.scopes.filter((s) => !(SCOPES as readonly string[]).includes(s));
        if (unknown.length > 0) errors.scopes = `unknown scope ${unknown.join(', ')}`;
        try {
          if (!errors.scopes) throwIfBadScopes(values.kind as 'scoped' | 'publishable', values.scopes as Scope[]);
        } catch (error) {
          Object.assign(errors, formErrors(error, ['scopes']));
        }
        if (Object.keys(errors).length > 0) return render(await listView(page, { values, errors }), { status: 400 });
        const created = await createApiKey(ctx.sql, { name: values.name, kind: values.kind as 'scoped' | 'publishable', scopes: values.scopes as Scope[] });
        // shown on this answer only: the database keeps a hash
        return render(await listView(page, { created: { name: created.name, key: created.key } }), { status: 201 });
      }),
    )
    .post(
      `${LIST}/:id/revoke`,
      ({ request, body, params }) =>
        kit.form(request, body, LIST, async (page) => {
          try {
            await revokeApiKey(ctx.sql, params.id);
          } catch (error) {
            if (!(error instanceof AppError) || error.status >= 500) throw error;
            return render(await listView(page, { error: error.message }), { status: error.status });
          }
          return seeOther(`${LIST}?done=revoked`);
        }),
      { params: t.Object({ id: t.String({ maxLength: 64 }) }) },
    );
}

function ApiKeysPage(props: {
  page: AdminPage;
  keys: ApiKeyRecord[];
  values?: Values;
  errors?: FormErrors;
  created?: { name: string; key: string };
  done?: string;
  error?: string;
}) {
  const v = props.values ?? { name: '', kind: 'scoped', scopes: [] };
  const e = props.errors ?? {};
  return (
    <AdminLayout page={props.page} title="API keys" current={LIST} scripts={['/assets/copy.js']}>
      <h1>API keys</h1>
      <Done texts={{ revoked: 'Key revoked: calls with it are refused from now on.' }} done={props.done} />
      {!!props.error && <Notice kind="error" text={props.error} />}
      {!!props.created && (
        <div class="notice ok" role="status" id="created">
          <p>
            Key <span safe>{props.created.name}</span> created. It is shown <strong>only now</strong>: copy it to where it will be used.
          </p>
          <div class="copy">
            <label class="vh" for="new-key">
              API key
            </label>
            <input id="new-key" class="secret" value={props.created.key} readonly />
            <button type="button" class="secondary" data-copy="#new-key">
              Copy
            </button>
          </div>
        </div>
      )}
      {props.keys.length === 0 ? (
        <p class="empty">No API keys.</p>
      ) : (
        <>
          <div class="table-wrap">
            <table id="keys" class="stack">
              <caption class="vh">Active API keys</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Kind</th>
                  <th scope="col">Key</th>
                  <th scope="col">Scopes</th>
                  <th scope="col">Created</th>
                  <th scope="col" class="act">
                    <span class="vh">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {props.keys.map((k) => (
                  <tr data-id={k.id}>
                    <td class="lead">
                      <Trunc text={k.name} />
                    </td>
                    <td data-label="Kind">{k.kind}</td>
                    <td data-label="Key">
                      <code safe>{k.hint}</code>
                    </td>
                    <td data-label="Scopes" class="fill">
                      <Trunc text={k.scopes.join(', ')} wide />
                    </td>
                    <td data-label="Created" safe>
                      {day(k.createdAt)}
                    </td>
                    <MenuButton menu={menuId('key', k.id)} label={`Actions for key ${k.name}`} />
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {props.keys.map((k) => (
            <RowMenu id={menuId('key', k.id)} title={`Key ${k.name}`}>
              <p>Calls with this key are refused from then on. This cannot be undone.</p>
              <form method="post" action={`${LIST}/${encodeURIComponent(k.id)}/revoke`}>
                <CsrfInput token={props.page.csrf} />
                <button type="submit" class="danger">
                  Revoke key
                </button>
              </form>
            </RowMenu>
          ))}
        </>
      )}
      <h2 id="new">New key</h2>
      <form method="post" action={LIST} novalidate>
        <CsrfInput token={props.page.csrf} />
        <div class="narrow">
          <Field name="name" label="Name" hint="What uses it, e.g. billing backend" value={v.name} error={e.name} required />
          <SelectField
            name="kind"
            label="Kind"
            value={v.kind}
            options={[
              { value: 'scoped', label: 'Secret key with scopes (server side)' },
              { value: 'publishable', label: 'Publishable key (browser client: identify only)' },
            ]}
          />
        </div>
        <ChoicesFieldset
          name="scopes"
          legend="Scopes (secret keys only)"
          choices={SCOPES.map((scope) => ({ value: scope, label: scope }))}
          ticked={(scope) => v.scopes.includes(scope)}
          error={e.scopes}
        />
        <button type="submit">Create key</button>
      </form>
    </AdminLayout>
  );
}
