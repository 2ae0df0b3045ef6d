// Admin emails: a preview of every template (sample data, the program's branding: subject, HTML in a
// frame, the plain-text part) and the outbox's recent trouble (emails retrying or given up).
import { Elysia } from 'elysia';
import type { AppContext } from '../../context';
import { loadBrand } from '../../mail/brand';
import { composeEmail } from '../../mail/compose';
import { outboxTrouble, type OutboxTrouble } from '../../mail/outbox';
import { TEMPLATES } from '../../mail/registry';
import { render } from '../render';
import type { AdminPage } from '../session';
import { Badge, EmptyState } from '../ui';
import { AdminLayout, NotFoundPage, type AdminKit } from './kit';

const PATH = '/admin/emails';
const SAMPLE_PARTNER = 'ptn_01jd8x0000000000000000000a';

/** The email's own HTML, as a mail client shows it: its inline styles and https images allowed, no script. */
const PREVIEW_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src https: data:; frame-ancestors 'self'; form-action 'none'; base-uri 'none'";

type Trouble = OutboxTrouble;

export function emailsRoutes(ctx: AppContext, kit: AdminKit) {
  const preview = async (name: string) => {
    const template = Object.hasOwn(TEMPLATES, name) ? TEMPLATES[name] : undefined;
    if (!template) return null;
    const brand = await loadBrand(ctx.sql, ctx.config.baseUrl);
    return composeEmail(template, template.sample, brand, { address: 'partner@example.com', partnerId: SAMPLE_PARTNER });
  };
  return new Elysia({ detail: { hide: true } })
    .get(PATH, ({ request }) =>
      kit.page(request, async (page) => {
        const brand = await loadBrand(ctx.sql, ctx.config.baseUrl);
        const previews = Object.entries(TEMPLATES).map(([name, template]) => ({
          name,
          title: template.title,
          audience: template.audience,
          ...composeEmail(template, template.sample, brand, { address: 'partner@example.com', partnerId: SAMPLE_PARTNER }),
        }));
        const trouble = await outboxTrouble(ctx.sql);
        return render(<EmailsPage page={page} previews={previews} trouble={trouble} />);
      }),
    )
    .get(`${PATH}/:name/preview`, ({ request, params }) =>
      kit.page(request, async (page) => {
        const email = await preview(params.name);
        if (!email) return render(<NotFoundPage page={page} what="email template" back={PATH} />, { status: 404 });
        return new Response(email.html, {
          headers: {
            'content-type': 'text/html; charset=utf-8',
            'cache-control': 'no-store',
            'content-security-policy': PREVIEW_CSP,
            'x-content-type-options': 'nosniff',
            'x-frame-options': 'SAMEORIGIN',
          },
        });
      }),
    );
}

const when = (d: Date) => `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;

function EmailsPage(props: {
  page: AdminPage;
  previews: { name: string; title: string; audience: string; subject: string; text: string }[];
  trouble: Trouble[];
}) {
  return (
    <AdminLayout page={props.page} title="Emails" current={PATH}>
      <h1>Emails</h1>
      <p class="hint">
        What partners and admins receive, with sample data and your <a href="/admin/settings#branding">branding</a>. Emails are sent from an outbox:
        a refused send is retried after 1 min, 5 min, 30 min, 2 h and 6 h, then given up.
      </p>
      <section aria-labelledby="trouble-heading" id="email-trouble">
        <h2 id="trouble-heading">Delivery problems</h2>
        {props.trouble.length === 0 ? (
          <EmptyState title="No delivery problems" text="Every email so far was sent on its first attempt." />
        ) : (
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th>Email</th>
                  <th>To</th>
                  <th>Status</th>
                  <th>Attempts</th>
                  <th>Last error</th>
                </tr>
              </thead>
              <tbody>
                {props.trouble.map((t) => (
                  <tr>
                    <td safe>{TEMPLATES[t.template]?.title ?? t.template}</td>
                    <td safe>{t.to_address}</td>
                    <td>
                      {t.status === 'failed' ? (
                        <Badge tone="red" label="Given up" title={`Not sent after ${t.attempts} attempts`} />
                      ) : (
                        <Badge tone="amber" label="Retrying" title={`Next attempt ${when(t.next_attempt_at)}`} />
                      )}
                    </td>
                    <td class="num">{t.attempts}</td>
                    <td safe>{t.last_error ?? ''}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
      <section aria-labelledby="previews-heading" id="email-previews">
        <h2 id="previews-heading">Previews</h2>
        {props.previews.map((p) => (
          <article class="email-preview" id={`preview-${p.name}`}>
            <h3>
              <span safe>{p.title}</span> <Badge tone={p.audience === 'admin' ? 'grey' : 'blue'} label={p.audience === 'admin' ? 'To admins' : 'To partners'} title="Who receives it" />
            </h3>
            <p>
              Subject: <strong safe>{p.subject}</strong>
            </p>
            <iframe class="email-frame" src={`${PATH}/${p.name}/preview`} title={`${p.title}: HTML part`} loading="lazy"></iframe>
            <details>
              <summary>Plain-text part</summary>
              <pre class="email-text" safe>
                {p.text}
              </pre>
            </details>
          </article>
        ))}
      </section>
    </AdminLayout>
  );
}
