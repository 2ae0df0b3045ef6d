// The portal's resources page (/portal/resources): what the program gives partners to promote it
// with, for everyone and for the partner's campaigns: files to download (images previewed), copy with
// the partner's own link filled in (with Copy), and links.
import { Elysia } from 'elysia';
import type { AppContext } from '../../context';
import type { ResourceRecord } from '../../modules/resources/model';
import { listResources, partnerLinks } from '../../modules/resources/service';
import { Preview, resourceKind } from '../resources';
import { RevokedPage } from './pages';
import { render, seeOther } from '../render';
import { guardPartner, type PartnerPage } from '../session';
import { attr, EmptyState } from '../ui';
import { PortalLayout } from './shell';

export const PORTAL_RESOURCES = '/portal/resources';

function ResourceCard(props: { r: ResourceRecord }) {
  const r = props.r;
  return (
    <li class="resource" data-id={r.id}>
      <Preview r={r} />
      <div class="resource-body">
        <h3 safe>{r.title}</h3>
        <p class="note" safe>
          {resourceKind(r)}
        </p>
        {r.file ? (
          <p>
            <a href={`${r.file.url}?download`} download={attr(r.file.name)}>
              Download
            </a>
          </p>
        ) : r.kind === 'text' ? (
          <div class="copy copy-text">
            <label class="vh" for={`text-${r.id}`} safe>
              {r.title}
            </label>
            <textarea id={`text-${r.id}`} rows="3" readonly safe>
              {r.body ?? ''}
            </textarea>
            <button type="button" class="secondary" data-copy={`#text-${r.id}`} aria-label={attr(`Copy ${r.title}`)}>
              Copy
            </button>
          </div>
        ) : (
          <p>
            <a href={attr(r.url ?? '')} rel="noopener noreferrer" target="_blank" safe>
              {r.url ?? ''}
            </a>
          </p>
        )}
      </div>
    </li>
  );
}

export function PortalResourcesPage(props: { page: PartnerPage; resources: ResourceRecord[] }) {
  return (
    <PortalLayout page={props.page} title="Resources" current={PORTAL_RESOURCES} scripts={['/assets/copy.js']}>
      <h1>Resources</h1>
      <p class="page-intro">Logos, banners and copy from the program. Texts already carry your own link.</p>
      {props.resources.length === 0 ? (
        <EmptyState title="No resources yet" text="The program has not shared any material yet. Check back later." />
      ) : (
        <ul class="resources" id="resources">
          {props.resources.map((r) => (
            <ResourceCard r={r} />
          ))}
        </ul>
      )}
    </PortalLayout>
  );
}

export function portalResourceRoutes(ctx: AppContext) {
  return new Elysia({ detail: { hide: true } }).get(PORTAL_RESOURCES, async ({ request }) => {
    const guard = await guardPartner(ctx, request);
    if (guard.kind === 'signed-out') return seeOther('/portal/sign-in');
    if (guard.kind === 'revoked') return render(<RevokedPage reason={guard.reason} />, { status: 403 });
    const partnerId = guard.page.partner.id;
    const links = await partnerLinks(ctx.sql, ctx.config.baseUrl, partnerId);
    const resources = await listResources(ctx.sql, { limit: 200, partnerId }, links);
    return render(<PortalResourcesPage page={guard.page} resources={resources} />);
  });
}
