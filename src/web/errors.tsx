// The error answers of the page paths (/admin, /portal): an HTML page in the shell of whoever is
// signed in, with the error's status, never the API's JSON. app.ts sends every error there here:
// an unknown page, a malformed id or query, a refused body, a fault.
import type { AppContext } from '../context';
import type { ErrorBody } from '../lib/errors';
import { AdminLayout } from './admin/kit';
import { Layout, Notice } from './layout';
import { PortalLayout } from './portal/pages';
import { fieldWords } from './field-words';
import { render } from './render';
import { guardAdmin, guardPartner } from './session';

const AREAS = ['/admin', '/portal'] as const;
type Area = (typeof AREAS)[number];

function areaOf(path: string): Area | undefined {
  return AREAS.find((area) => path === area || path.startsWith(`${area}/`));
}

export function isPagePath(path: string): boolean {
  return areaOf(path) !== undefined;
}

/** Why a request was refused, in sentences: each field problem by the field's on-screen name. */
export function refusedText(body: ErrorBody): string {
  const details = Array.isArray(body.details) ? (body.details as { field?: unknown; message?: unknown }[]) : [];
  const sentences = details
    .filter((d) => typeof d.field === 'string' && typeof d.message === 'string')
    .map((d) => `${fieldWords(d.field as string)}: ${d.message as string}.`);
  return sentences.length > 0 ? sentences.join(' ') : body.message;
}

function ErrorContent(props: { body: ErrorBody; status: number; home: string }) {
  const { title, text } =
    props.status === 404
      ? { title: 'Page not found', text: 'There is no page at this address.' }
      : props.status >= 500
        ? { title: 'Something went wrong', text: 'The error was logged. Try again in a moment.' }
        : { title: 'Request refused', text: refusedText(props.body) };
  return (
    <div class="narrow">
      <h1 safe>{title}</h1>
      {props.status === 404 || props.status >= 500 ? <p safe>{text}</p> : <Notice kind="error" text={text} />}
      <p>
        <a href={props.home}>Go to the start page</a>
      </p>
    </div>
  );
}

/** The error page; the admin or portal shell when its session is live, a plain one otherwise. */
export async function errorPage(ctx: AppContext, request: Request, body: ErrorBody, status: number): Promise<Response> {
  const area = areaOf(new URL(request.url).pathname) ?? '/portal';
  const content = <ErrorContent body={body} status={status} home={area} />;
  const title = status === 404 ? 'Not found' : status >= 500 ? 'Error' : 'Refused';
  const plain = () => render(<Layout title={title}>{content}</Layout>, { status });
  try {
    if (area === '/admin') {
      const guard = await guardAdmin(ctx, request);
      if (guard.kind === 'admin') {
        return render(
          <AdminLayout page={guard.page} title={title} current="">
            {content}
          </AdminLayout>,
          { status },
        );
      }
    } else {
      const guard = await guardPartner(ctx, request);
      if (guard.kind === 'partner') {
        return render(
          <PortalLayout page={guard.page} title={title} current="">
            {content}
          </PortalLayout>,
          { status },
        );
      }
    }
  } catch (error) {
    // the session lookup failed too (the database is down): the plain page still answers
    ctx.log.error('error page without its session', { error });
  }
  return plain();
}
