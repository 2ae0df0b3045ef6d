// Admin applications queue (/admin/applications): self-signups waiting for review under
// partnerSignup = review, each with its answers to the signup questions; approve one (confirmed:
// the invite goes out) or decline it with a reason (required: the applicant is mailed it). The
// rules are workflows/applications.ts; the partner page shows the application too (ApplicationFacts).
import { Elysia, t } from 'elysia';
import type { AppContext } from '../../context';
import { AppError } from '../../lib/errors';
import { DeclineBody } from '../../modules/partners/model';
import { findPartner, listPartners, type Partner } from '../../modules/partners/service';
import { approveApplication, declineApplication } from '../../workflows/applications';
import { signupMode, type SignupMode } from '../../workflows/sign-in';
import { ConfirmDialog, ConfirmPanel, ConfirmTrigger, isConfirmed } from '../confirm';
import { schemaErrors } from '../forms';
import { Notice } from '../layout';
import { render, seeOther } from '../render';
import type { AdminPage } from '../session';
import { attr, EmptyState } from '../ui';
import { AdminLayout, can, Done, NotFoundPage, type AdminKit } from './kit';
import type { ApplicationQuestion } from '../../lib/questions';
import { applicationQuestions } from '../../modules/settings/service';

export const APPLICATIONS = '/admin/applications';
const SHOWN = 200;

const DONE = {
  approved: 'Application approved: the invite is on its way.',
  declined: 'Application declined: the applicant is mailed the reason.',
};

const Params = t.Object({ id: t.String({ maxLength: 64 }) });
const when = (iso: string) => iso.slice(0, 16).replace('T', ' ');
const itemPath = (id: string) => `${APPLICATIONS}/${encodeURIComponent(id)}`;


function reasonProblem(reason: string): string | null {
  const problems = schemaErrors(DeclineBody, { reason: reason.trim() });
  if (!problems.reason) return null;
  return problems.reason === 'required' || problems.reason === 'not a valid value' ? 'say why: the applicant is mailed this reason' : problems.reason;
}

export function applicationRoutes(ctx: AppContext, kit: AdminKit) {
  async function queueView(page: AdminPage, done?: string, error?: string) {
    const [items, mode, questions] = await Promise.all([listPartners(ctx.sql, { status: 'applied', limit: SHOWN }), signupMode(ctx), applicationQuestions(ctx.sql)]);
    // the newest SHOWN, oldest first: the queue is worked through in the order people applied
    const waiting = items.slice(0, SHOWN).reverse();
    return (<ApplicationsPage page={page} items={waiting} more={items.length > SHOWN} mode={mode} questions={questions} done={done} error={error} />) as string;
  }

  /** An application's confirmation as a page (no script, a direct visit, or a refused post). */
  function confirmView(page: AdminPage, partner: Partner, action: 'approve' | 'decline', input: { reason?: string; error?: string } = {}) {
    return (
      <AdminLayout page={page} title={`${action === 'approve' ? 'Approve' : 'Decline'} ${partner.name}`} current={APPLICATIONS}>
        <p class="back">
          <a href={APPLICATIONS}>Applications</a>
        </p>
        {partner.status === 'applied' ? (
          <ConfirmPanel {...confirmProps(page, partner, action, input)} back={APPLICATIONS} />
        ) : (
          <section class="confirm-page">
            <h1 safe>{`${partner.name} is not waiting for review`}</h1>
            <Notice kind="error" text={`This application was already ${partner.status === 'declined' ? 'declined' : 'approved'}.`} />
          </section>
        )}
      </AdminLayout>
    ) as string;
  }

  /** A decision on one application: 404 page for an unknown id, the confirmation until confirmed. */
  function decide(action: 'approve' | 'decline') {
    return ({ request, body, params }: { request: Request; body: unknown; params: { id: string } }) =>
      kit.form(request, body, APPLICATIONS, async (page, form) => {
        const partner = await findPartner(ctx.sql, params.id);
        if (!partner) return render(<NotFoundPage page={page} what="application" back={APPLICATIONS} />, { status: 404 });
        if (!isConfirmed(form)) return render(confirmView(page, partner, action, { reason: form.reason }));
        const reason = (form.reason ?? '').trim();
        if (action === 'decline') {
          const problem = reasonProblem(reason);
          if (problem) return render(confirmView(page, partner, action, { reason: form.reason, error: problem }), { status: 400 });
        }
        try {
          if (action === 'approve') await approveApplication(ctx, partner.id);
          else await declineApplication(ctx, partner.id, { reason });
        } catch (error) {
          // decided meanwhile (another admin, the API): say so on the queue
          if (!(error instanceof AppError) || error.status !== 409) throw error;
          return render(await queueView(page, undefined, `${partner.name}: ${error.message}`), { status: 409 });
        }
        return seeOther(`${APPLICATIONS}?done=${action === 'approve' ? 'approved' : 'declined'}`);
      });
  }

  const confirmPage = (action: 'approve' | 'decline') => ({ request, params }: { request: Request; params: { id: string } }) =>
    kit.page(request, async (page) => {
      const partner = await findPartner(ctx.sql, params.id);
      if (!partner) return render(<NotFoundPage page={page} what="application" back={APPLICATIONS} />, { status: 404 });
      return render(confirmView(page, partner, action));
    });

  return new Elysia({ detail: { hide: true } })
    .get(APPLICATIONS, ({ request, query }) => kit.page(request, async (page) => render(await queueView(page, query.done))), {
      query: t.Object({ done: t.Optional(t.String({ maxLength: 20 })) }),
    })
    .get(`${APPLICATIONS}/:id/approve`, confirmPage('approve'), { params: Params })
    .get(`${APPLICATIONS}/:id/decline`, confirmPage('decline'), { params: Params })
    .post(`${APPLICATIONS}/:id/approve`, decide('approve'), { params: Params })
    .post(`${APPLICATIONS}/:id/decline`, decide('decline'), { params: Params });
}

function confirmProps(page: AdminPage, partner: Partner, action: 'approve' | 'decline', input: { reason?: string; error?: string }) {
  if (action === 'approve') {
    return {
      title: `Approve ${partner.name}`,
      action: `${itemPath(partner.id)}/approve`,
      button: `Approve and invite ${partner.name}`,
      csrf: page.csrf,
      children: <p safe>{`${partner.name} (${partner.email}) is mailed an invite link and becomes a partner once they open it.`}</p>,
    };
  }
  return {
    title: `Decline ${partner.name}`,
    action: `${itemPath(partner.id)}/decline`,
    button: `Decline ${partner.name}`,
    csrf: page.csrf,
    danger: true,
    children: (
      <>
        <p safe>{`${partner.name} (${partner.email}) is mailed the reason below and cannot sign in. A decline cannot be undone.`}</p>
        <ReasonField id={`reason-${partner.id}`} value={input.reason} error={input.error} />
      </>
    ),
  };
}

/** The decline reason: a textarea with its own id (one per dialog on the queue page). */
function ReasonField(props: { id: string; value?: string; error?: string }) {
  const described = [`${props.id}-hint`, props.error ? `${props.id}-error` : ''].filter(Boolean).join(' ');
  return (
    <div class={props.error ? 'field invalid' : 'field'}>
      <label for={props.id}>Reason</label>
      <small id={`${props.id}-hint`}>The applicant reads it in the email.</small>
      <textarea id={props.id} name="reason" rows="3" maxlength="1000" required aria-invalid={props.error ? 'true' : undefined} aria-describedby={described} safe>
        {props.value ?? ''}
      </textarea>
      {!!props.error && (
        <p class="error" id={`${props.id}-error`} safe>
          {props.error}
        </p>
      )}
    </div>
  );
}

/**
 * The answers under their questions' labels, in the order the sign-up page asks them; an answer whose
 * question was since removed or renamed shows under its key, marked so. An address (a url question)
 * is a link that passes nothing on.
 */
export function ApplicationAnswersList(props: { answers: Record<string, string> | null; questions: ApplicationQuestion[] }) {
  const answers = props.answers ?? {};
  const asked = props.questions.filter((q) => answers[q.key]).map((q) => ({ key: q.key, label: q.label, url: q.type === 'url' }));
  const known = new Set(props.questions.map((q) => q.key));
  const left = Object.keys(answers)
    .filter((k) => !known.has(k) && answers[k])
    .map((k) => ({ key: k, label: `${k} (no longer asked)`, url: false }));
  const given = [...asked, ...left];
  if (given.length === 0) return <p class="hint">No answers to the signup questions.</p>;
  return (
    <dl class="answers">
      {given.map((q) => {
        const value = answers[q.key]!;
        return (
          <>
            <dt data-answer-key={q.key} safe>
              {q.label}
            </dt>
            {q.url && /^https?:\/\//i.test(value) ? (
              <dd>
                <a href={value} rel="nofollow noopener noreferrer ugc" target="_blank" class="answer-url" title={attr(value)} safe>
                  {value}
                </a>
              </dd>
            ) : (
              <dd safe>{value}</dd>
            )}
          </>
        );
      })}
    </dl>
  );
}

const MODE_HINT: Record<SignupMode, string> = {
  review: 'New partners sign up at /portal/sign-up and wait here until you approve or decline them.',
  open: 'Signup is open: new partners are invited at once and do not wait here. Switch to review in Settings to vet them first.',
  closed: 'Signup is closed: nobody can apply. Switch to review in Settings to take applications.',
};

function ApplicationsPage(props: { page: AdminPage; items: Partner[]; more: boolean; mode: SignupMode; questions: ApplicationQuestion[]; done?: string; error?: string }) {
  const n = props.items.length;
  // a role that may not decide applications reads them and their answers, without the buttons
  const decide = can(props.page, 'POST', `${APPLICATIONS}/:id/approve`);
  return (
    <AdminLayout page={props.page} title="Applications" current={APPLICATIONS}>
      <div class="page-head">
        <h1>Applications</h1>
      </div>
      <Done texts={DONE} done={props.done} />
      {!!props.error && <Notice kind="error" text={props.error} />}
      <p class="hint">
        <span safe>{MODE_HINT[props.mode]}</span> <a href="/admin/settings">Settings</a>
      </p>
      {n === 0 ? (
        <EmptyState title="No applications waiting" text="New applications appear here, oldest first, with their answers." />
      ) : (
        <>
          <p id="applications-count" role="status" safe>
            {props.more ? `More than ${n} applications waiting; the newest ${n} are shown` : `${n} ${n === 1 ? 'application' : 'applications'} waiting`}
          </p>
          <ol class="review-list applications">
            {props.items.map((p) => (
              <li class="review-item application" id={`application-${p.id}`}>
                <div class="review-head">
                  <div class="review-title">
                    <a href={`/admin/partners/${encodeURIComponent(p.id)}`} class="trunc" title={attr(p.name)} safe>
                      {p.name}
                    </a>
                  </div>
                  <p class="hint" safe>{`${p.email} · applied ${when(p.appliedAt ?? p.createdAt)} UTC`}</p>
                </div>
                <ApplicationAnswersList answers={p.applicationAnswers} questions={props.questions} />
                {decide && (
                  <>
                    <div class="actions">
                      <ConfirmTrigger href={`${itemPath(p.id)}/approve`} dialog={`approve-${p.id}`} label="Approve…" />
                      <ConfirmTrigger href={`${itemPath(p.id)}/decline`} dialog={`decline-${p.id}`} label="Decline…" danger />
                    </div>
                    <ConfirmDialog id={`approve-${p.id}`} {...confirmProps(props.page, p, 'approve', {})} />
                    <ConfirmDialog id={`decline-${p.id}`} {...confirmProps(props.page, p, 'decline', {})} />
                  </>
                )}
              </li>
            ))}
          </ol>
        </>
      )}
    </AdminLayout>
  );
}

/** The partner page's application section: when they applied, their answers, the decision. */
export function ApplicationFacts(props: { partner: Partner; questions: ApplicationQuestion[]; decide: boolean }) {
  const p = props.partner;
  if (!p.appliedAt && !p.applicationAnswers) return <></>;
  return (
    <section aria-labelledby="application-title" id="partner-application">
      <div class="section-head">
        <h2 id="application-title">Application</h2>
        {p.status === 'applied' && props.decide && (
          <div class="actions">
            <ConfirmTrigger href={`${itemPath(p.id)}/approve`} dialog={`approve-${p.id}`} label="Approve…" />
            <ConfirmTrigger href={`${itemPath(p.id)}/decline`} dialog={`decline-${p.id}`} label="Decline…" danger />
          </div>
        )}
      </div>
      {!!p.appliedAt && (
        <p class="hint" safe>
          {`Applied ${when(p.appliedAt)} UTC. ${p.status === 'applied' ? 'Waiting for review.' : p.status === 'declined' ? 'Declined.' : 'Approved.'}`}
        </p>
      )}
      {p.status === 'declined' && !!p.declineReason && (
        <p>
          Reason given: <span class="reason" safe>{p.declineReason}</span>
        </p>
      )}
      <ApplicationAnswersList answers={p.applicationAnswers} questions={props.questions} />
    </section>
  );
}

/** The partner page's dialogs for ApplicationFacts' buttons (outside the section's layout). */
export function ApplicationDialogs(props: { page: AdminPage; partner: Partner }) {
  if (props.partner.status !== 'applied' || !can(props.page, 'POST', `${APPLICATIONS}/:id/approve`)) return <></>;
  return (
    <>
      <ConfirmDialog id={`approve-${props.partner.id}`} {...confirmProps(props.page, props.partner, 'approve', {})} />
      <ConfirmDialog id={`decline-${props.partner.id}`} {...confirmProps(props.page, props.partner, 'decline', {})} />
    </>
  );
}
