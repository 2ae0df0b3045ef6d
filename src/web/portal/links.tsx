// The portal's links page: the link builder (campaign, a page of its site, UTM fields, custom slug; the
// final address shown while typing by /assets/link-builder.js, or by the server after "Preview") and
// every link with its clicks, conversions, conversion rate and earnings.
import type { Link } from '../../modules/links/service';
import type { LinkStats } from '../../modules/reports/portal';
import { CsrfInput, Field, type FormErrors } from '../forms';
import { Notice, OlderLink } from '../layout';
import type { PartnerPage } from '../session';
import { attr, EmptyState } from '../ui';
import { UTM_FIELDS, type UtmField } from './builder';
import { LinkStatsTable } from './home';
import { PortalLayout } from './shell';

export type BuilderValues = { campaignId?: string; page?: string; slug?: string } & Partial<Record<UtmField, string>>;

const UTM_LABELS: Record<UtmField, { label: string; hint: string }> = {
  utm_source: { label: 'Source (utm_source)', hint: 'Where you share it: newsletter, youtube, twitter' },
  utm_medium: { label: 'Medium (utm_medium)', hint: 'email, social, video, cpc' },
  utm_campaign: { label: 'Campaign (utm_campaign)', hint: 'Your own name for this push: spring-sale' },
  utm_content: { label: 'Content (utm_content)', hint: 'Which ad or button, to tell them apart' },
  utm_term: { label: 'Term (utm_term)', hint: 'Paid search keyword' },
};

export function LinksPage(props: {
  page: PartnerPage;
  baseUrl: string;
  links: Link[];
  stats: Map<string, LinkStats>;
  campaigns: { id: string; name: string; destinationUrl: string }[];
  /** The partner's live promotion codes. */
  codes: string[];
  nextCursor: string | null;
  values?: BuilderValues;
  errors?: FormErrors;
  /** the server's preview: the landing page for the values (null: the campaign's own) */
  preview?: { url: string | null; share: string };
  created?: { slug: string; url: string; landing: string } | null;
}) {
  const names = new Map(props.campaigns.map((c) => [c.id, c.name]));
  const v = props.values ?? {};
  const chosen = props.campaigns.find((c) => c.id === v.campaignId) ?? props.campaigns[0];
  const shareBase = `${props.baseUrl}/r/`;
  const pageProblem: string = props.errors?.page ? `The page ${props.errors.page}.` : '';
  const landing = props.preview ? (props.preview.url ?? chosen?.destinationUrl ?? '') : (chosen?.destinationUrl ?? '');
  const share = props.preview?.share ?? `${shareBase}${v.slug?.trim() || '(random)'}`;
  return (
    <PortalLayout page={props.page} title="Links" current="/portal/links" scripts={['/assets/copy.js', '/assets/link-builder.js']}>
      <h1>Your links</h1>
      {props.created ? (
        <div class="notice ok" role="status" id="created">
          <p safe>{`Link created: ${props.created.url}`}</p>
          <p class="note" safe>{`Visitors land on ${props.created.landing}`}</p>
        </div>
      ) : (
        ''
      )}
      <h2>Build a link</h2>
      {props.campaigns.length === 0 ? (
        <p class="empty">You hold no active campaign yet, so you cannot create links.</p>
      ) : (
        <form method="post" action="/portal/links" class="builder" data-link-builder novalidate>
          <CsrfInput token={props.page.csrf} />
          {!!props.errors?._form && <Notice kind="error" text={props.errors._form} />}
          <div class="builder-grid">
            <div class="builder-main">
              <CampaignSelect campaigns={props.campaigns} value={chosen?.id} error={props.errors?.campaignId} />
              <Field
                name="page"
                label="Page (optional)"
                hint={`Any page of ${chosen ? new URL(chosen.destinationUrl).host : 'the campaign site'}: a path like /pricing, or its full address. Empty: the campaign's page.`}
                value={attr(v.page ?? '')}
                error={props.errors?.page}
                autocomplete="off"
              />
              <Field
                name="slug"
                label="Custom slug (optional)"
                hint="3-64 letters, digits, _ or -. Empty: a random one."
                value={attr(v.slug ?? '')}
                error={props.errors?.slug}
                autocomplete="off"
              />
            </div>
            <fieldset class="utm">
              <legend>UTM parameters (optional)</legend>
              {UTM_FIELDS.map((k) => (
                <Field name={k} label={UTM_LABELS[k].label} hint={UTM_LABELS[k].hint} value={attr(v[k] ?? '')} error={props.errors?.[k]} autocomplete="off" />
              ))}
            </fieldset>
          </div>
          <div class="final" aria-live="polite">
            <p>
              <span class="final-label">Visitors land on</span>
              <output id="final-url" data-final-url safe>
                {landing}
              </output>
            </p>
            <p class="error" id="builder-problem" data-builder-problem hidden={!props.errors?.page} safe>
              {pageProblem}
            </p>
            <p>
              <span class="final-label">You share</span>
              <output id="share-url" data-share-url data-base={shareBase} data-placeholder="(random)" safe>
                {share}
              </output>
            </p>
            <p class="note">Each visit adds pp_click=… to the address so the sale is credited to you.</p>
          </div>
          <div class="actions">
            <button type="submit" name="intent" value="create">
              Create link
            </button>
            <button type="submit" name="intent" value="preview" class="secondary">
              Preview
            </button>
          </div>
        </form>
      )}
      <h2>All links</h2>
      <p>
        <a href="/portal/traffic" id="links-traffic">
          Where your clicks come from: by sub-ID, country, device, browser and referrer
        </a>
      </p>
      {props.links.length === 0 ? (
        <EmptyState title="No links yet" text="Build your first link above, then share it." />
      ) : (
        <LinkStatsTable links={props.links} stats={props.stats} campaignNames={names} caption="Your links, newest first, with all-time clicks, conversions and earnings" />
      )}
      <OlderLink path="/portal/links" cursor={props.nextCursor} label="Older links" />
      <CodesNote codes={props.codes} />
    </PortalLayout>
  );
}

/** The partner's promotion codes under its links, or how to get one. */
function CodesNote(props: { codes: string[] }) {
  return (
    <>
        <h2>Promotion codes</h2>
        {props.codes.length === 0 ? (
          <p class="note" id="codes-note">
            You have no promotion code yet. <a href="/portal/codes">Create one</a>: customers who use it at checkout count as yours, even without a link.
          </p>
        ) : (
          <p class="note" id="codes-note">
            Your {props.codes.length === 1 ? 'code' : 'codes'}:{' '}
            {props.codes.map((code, i) => (
              <>
                {i > 0 ? ', ' : ''}
                <code safe>{code}</code>
              </>
            ))}
            . Customers who use {props.codes.length === 1 ? 'it' : 'one'} at checkout count as yours. <a href="/portal/codes">See their numbers</a>.
          </p>
        )}
    </>
  );
}

/** The campaign select (SelectField has no per-option attributes): each option carries its destination for the builder script. */
function CampaignSelect(props: { campaigns: { id: string; name: string; destinationUrl: string }[]; value?: string; error?: string }) {
  return (
    <div class={props.error ? 'field invalid' : 'field'}>
      <label for="f-campaignId">Campaign</label>
      <select id="f-campaignId" name="campaignId" aria-invalid={props.error ? 'true' : undefined} aria-describedby={props.error ? 'f-campaignId-error' : undefined}>
        {props.campaigns.map((c) => (
          <option value={c.id} selected={c.id === props.value} data-destination={c.destinationUrl} safe>
            {c.name}
          </option>
        ))}
      </select>
      {!!props.error && (
        <p class="error" id="f-campaignId-error" safe>
          {props.error}
        </p>
      )}
    </div>
  );
}
