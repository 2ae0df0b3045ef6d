// The admin's resources page: upload a file, write a text or link, and every resource with image
// previews and a delete action (in the row's menu).
import type { ResourceRecord } from '../../../modules/resources/model';
import { CsrfInput, Field, SelectField, type FormErrors } from '../../forms';
import { day, Notice } from '../../layout';
import type { AdminPage } from '../../session';
import { EmptyState, MenuButton, menuId, RowMenu, Trunc } from '../../ui';
import { AdminLayout, can, Done } from '../kit';
import { Preview, resourceKind } from '../../resources';

export const RESOURCES = '/admin/resources';

const DONE = { uploaded: 'Resource added.', deleted: 'Resource deleted.' };

export type ResourceFormValues = { kind?: string; title?: string; body?: string; url?: string; campaignId?: string };

export function AdminResourcesPage(props: {
  page: AdminPage;
  resources: ResourceRecord[];
  campaigns: { id: string; name: string }[];
  done?: string;
  problem?: { form: 'file' | 'text'; errors: FormErrors };
  values?: ResourceFormValues;
}) {
  const names = new Map(props.campaigns.map((c) => [c.id, c.name]));
  const options = [{ value: '', label: 'Everyone' }, ...props.campaigns.map((c) => ({ value: c.id, label: c.name }))];
  const fileErrors = props.problem?.form === 'file' ? props.problem.errors : {};
  const textErrors = props.problem?.form === 'text' ? props.problem.errors : {};
  const v = props.values ?? {};
  // a role that may not change resources sees them, without the forms and the delete menu
  const write = can(props.page, 'POST', RESOURCES);
  return (
    <AdminLayout page={props.page} title="Resources" current={RESOURCES}>
      <h1>Resources</h1>
      <p class="page-intro">Logos, banners, guides and approved copy for partners. Partners see what is for everyone and for their campaigns on their Resources page.</p>
      <Done texts={DONE} done={props.done} />
      {write && (
        <div class="resource-forms">
          <UploadForm csrf={props.page.csrf} options={options} errors={fileErrors} />
          <TextForm csrf={props.page.csrf} options={options} errors={textErrors} values={v} />
        </div>
      )}
      <h2>All resources</h2>
      {props.resources.length === 0 ? (
        <EmptyState title="No resources yet" text="Upload a logo or a banner, or write the copy partners may use." />
      ) : (
        <>
          <div class="table-wrap">
            <table id="resources" class="stack">
              <caption class="vh">Resources, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">
                    <span class="vh">Preview</span>
                  </th>
                  <th scope="col">Title</th>
                  <th scope="col">Kind</th>
                  <th scope="col">For</th>
                  <th scope="col">Added</th>
                  {write && (
                    <th scope="col" class="act">
                      <span class="vh">Actions</span>
                    </th>
                  )}
                </tr>
              </thead>
              <tbody>
                {props.resources.map((r) => (
                  <tr data-id={r.id}>
                    <td class="thumb-cell">
                      <Preview r={r} />
                    </td>
                    <td class="lead fill">
                      <Trunc text={r.title} href={r.file?.url ?? r.url ?? undefined} wide />
                    </td>
                    <td data-label="Kind" safe>
                      {resourceKind(r)}
                    </td>
                    <td data-label="For">
                      <Trunc text={r.campaignId ? (names.get(r.campaignId) ?? r.campaignId) : 'Everyone'} />
                    </td>
                    <td data-label="Added" safe>
                      {day(r.createdAt)}
                    </td>
                    {write && <MenuButton menu={menuId('rsc', r.id)} label={`Actions for ${r.title}`} />}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {write && props.resources.map((r) => (
            <RowMenu id={menuId('rsc', r.id)} title={r.title}>
              <p>Partners no longer see it, and its file is deleted. This cannot be undone.</p>
              <form method="post" action={`${RESOURCES}/${encodeURIComponent(r.id)}/delete`}>
                <CsrfInput token={props.page.csrf} />
                <button type="submit" class="danger">
                  Delete resource
                </button>
              </form>
            </RowMenu>
          ))}
        </>
      )}
    </AdminLayout>
  );
}

type Option = { value: string; label: string };

function UploadForm(props: { csrf: string; options: Option[]; errors: FormErrors }) {
  const fileErrors = props.errors;
  const options = props.options;
  return (
    <form method="post" action={RESOURCES} enctype="multipart/form-data" id="upload-form" class="form" novalidate>
      <h2>Upload a file</h2>
      <CsrfInput token={props.csrf} />
      {!!fileErrors._form && <Notice kind="error" text={fileErrors._form} />}
      <div class={fileErrors.file ? 'field invalid' : 'field'}>
        <label for="f-file">File</label>
        <small id="f-file-hint">PNG, JPEG, GIF, WebP, PDF or ZIP, at most 10 MB. SVG is not accepted.</small>
        <input id="f-file" type="file" name="file" accept=".png,.jpg,.jpeg,.gif,.webp,.pdf,.zip,image/png,image/jpeg,image/gif,image/webp,application/pdf,application/zip" required aria-describedby={fileErrors.file ? 'f-file-hint f-file-error' : 'f-file-hint'} aria-invalid={fileErrors.file ? 'true' : undefined} />
        {!!fileErrors.file && (
          <p class="error" id="f-file-error" safe>
            {fileErrors.file}
          </p>
        )}
      </div>
      <div class={fileErrors.title ? 'field invalid' : 'field'}>
        <label for="u-title">Title (optional)</label>
        <small id="u-title-hint">Default: the file name.</small>
        <input id="u-title" name="title" maxlength="200" aria-describedby="u-title-hint" />
        {!!fileErrors.title && (
          <p class="error" safe>
            {fileErrors.title}
          </p>
        )}
      </div>
      <div class="field">
        <label for="u-campaignId">For</label>
        <select id="u-campaignId" name="campaignId">
          {options.map((o) => (
            <option value={o.value} safe>
              {o.label}
            </option>
          ))}
        </select>
      </div>
      <button type="submit">Upload</button>
    </form>
  );
}

function TextForm(props: { csrf: string; options: Option[]; errors: FormErrors; values: ResourceFormValues }) {
  const textErrors = props.errors;
  const options = props.options;
  const v = props.values;
  return (
    <form method="post" action={`${RESOURCES}/text`} id="text-form" class="form" novalidate>
      <h2>Add copy or a link</h2>
      <CsrfInput token={props.csrf} />
      {!!textErrors._form && <Notice kind="error" text={textErrors._form} />}
      <SelectField name="kind" label="Kind" options={[{ value: 'text', label: 'Text (approved copy)' }, { value: 'link', label: 'Link' }]} value={v.kind ?? 'text'} />
      <Field name="title" label="Title" value={v.title} error={textErrors.title} required />
      <div class={textErrors.body ? 'field invalid' : 'field'}>
        <label for="f-body">Text</label>
        <small id="f-body-hint">{'For a text. {{link}} becomes each partner\'s own link.'}</small>
        <textarea id="f-body" name="body" rows="4" maxlength="20000" aria-describedby="f-body-hint" safe>
          {v.body ?? ''}
        </textarea>
        {!!textErrors.body && (
          <p class="error" safe>
            {textErrors.body}
          </p>
        )}
      </div>
      <Field name="url" label="Address" type="url" hint="For a link: https://…" value={v.url} error={textErrors.url} />
      <SelectField name="campaignId" label="For" options={options} value={v.campaignId ?? ''} />
      <button type="submit">Add</button>
    </form>
  );
}
