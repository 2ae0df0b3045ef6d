// The overview's setup checklist: six steps from a campaign to the first partner, the snippet to
// copy and the latest event received (polled by htmx).
import type { Children } from '@kitajs/html';
import type { LatestEvent } from '../../../modules/reports/overview';
import { CsrfInput } from '../../forms';
import { formatMoney } from '../../ui';
import { LATEST, type Data } from './data';

type Step = { key: string; title: string; done: boolean; action?: { href: string; label: string } };

export function setupSteps(d: Data, createdKey?: string): Step[] {
  const s = d.setup;
  return [
    { key: 'campaign', title: 'Create a campaign', done: s.campaign, action: { href: '/admin/campaigns', label: 'Create a campaign' } },
    { key: 'key', title: 'Create a publishable key', done: s.publishableKey || !!createdKey, action: { href: '/admin/api-keys', label: 'Create a publishable key' } },
    { key: 'snippet', title: 'Install the snippet', done: s.identified },
    { key: 'click', title: 'See the first click and a test event', done: s.click && s.latestEvent !== null },
    { key: 'billing', title: 'Connect a billing provider', done: d.billingConfigured || s.providerEvent },
    { key: 'partner', title: 'Invite a partner', done: s.partner, action: { href: '/admin/partners', label: 'Invite a partner' } },
  ];
}

export function SetupChecklist(props: { steps: Step[]; doneCount: number; csrf: string; baseUrl: string; data: Data; createdKey?: string }) {
  const total = props.steps.length;
  const step = (key: string) => props.steps.find((s) => s.key === key)!;
  return (
    <section class="setup" id="setup" aria-labelledby="setup-title">
      <div class="setup-head">
        <div>
          <h2 id="setup-title">Set up your program</h2>
          <p class="setup-count" id="setup-count" safe>{`${props.doneCount} of ${total} done`}</p>
        </div>
        <progress max={total} value={props.doneCount} aria-labelledby="setup-count"></progress>
        <form method="post" action="/admin/onboarding/dismiss" class="setup-dismiss">
          <CsrfInput token={props.csrf} />
          <button type="submit" class="secondary">
            Dismiss
          </button>
        </form>
      </div>
      <ol class="steps">
        <StepItem step={step('campaign')} text="What partners promote, where their links lead and what they earn." />
        <StepItem step={step('key')} text="The browser snippet sends it when it identifies a user; it can do nothing else.">
          {!step('key').done ? (
            <form method="post" action="/admin/onboarding/key" class="step-form">
              <CsrfInput token={props.csrf} />
              <button type="submit">Create a publishable key for the snippet</button>
            </form>
          ) : (
            ''
          )}
        </StepItem>
        <StepItem step={step('snippet')} text="Ticked once your site has identified a user.">
          <Snippet baseUrl={props.baseUrl} createdKey={props.createdKey} hasKey={props.data.setup.publishableKey} currency={props.data.currency ?? 'USD'} />
        </StepItem>
        <StepItem step={step('click')} text="Follow a partner's link, sign up on your site, then send an event with the server call above.">
          <p class="step-facts">
            <span>{props.data.setup.click ? 'First click: seen.' : 'First click: not yet.'}</span>
          </p>
          <LatestEventLine event={props.data.setup.latestEvent} />
        </StepItem>
        <StepItem step={step('billing')} text="Sales, refunds and disputes then arrive from the provider without code.">
          <p class="step-facts">
            Stripe, Paddle Billing or Lemon Squeezy: <a href="/admin/settings#billing">Settings</a> shows the address to paste into each and the secret to set.
            Ticked when a provider is configured or its first event arrived.
          </p>
        </StepItem>
        <StepItem step={step('partner')} text="Partners get an emailed sign-in link to their portal, where they make share links." />
      </ol>
    </section>
  );
}

function StepItem(props: { step: Step; text: string; children?: Children }) {
  const s = props.step;
  return (
    <li class={s.done ? 'step done' : 'step'} id={`step-${s.key}`} data-done={s.done ? 'true' : 'false'}>
      <span class="step-mark" aria-hidden="true">
        {s.done ? '✓' : ''}
      </span>
      <div class="step-body">
        <p class="step-title">
          <strong safe>{s.title}</strong>
          <span class="vh">{s.done ? ' (done)' : ' (to do)'}</span>
        </p>
        {s.done ? (
          ''
        ) : (
          <>
            <p class="step-text" safe>
              {props.text}
            </p>
            {props.children ?? ''}
            {s.action && s.key !== 'key' ? (
              <a class="button secondary" href={s.action.href} safe>
                {s.action.label}
              </a>
            ) : (
              ''
            )}
          </>
        )}
      </div>
    </li>
  );
}

/** The browser snippet and the server call, ready to copy; the real key when this answer created it. */
function Snippet(props: { baseUrl: string; createdKey?: string; hasKey: boolean; currency: string }) {
  const key = props.createdKey ?? 'pk_…';
  const browser = [
    `<script src="${props.baseUrl}/client.js" data-key="${key}"></script>`,
    '<script>',
    '  // once the user has signed up or signed in:',
    '  partnerd.identify(user.id);',
    '</script>',
  ].join('\n');
  const server = [
    `curl -X POST ${props.baseUrl}/v1/events \\`,
    `  -H "Authorization: Bearer sk_… (a key with events:write)" \\`,
    '  -H "Content-Type: application/json" \\',
    `  -d '{"userId": "user_123", "type": "invoice_paid", "amount": 4900, "currency": "${props.currency}"}'`,
  ].join('\n');
  return (
    <div class="snippets">
      <CopyBlock id="snippet-browser" label="On every page of your site" rows="5" code={browser}>
        {props.createdKey
          ? 'Your new publishable key is filled in. It is not shown again.'
          : props.hasKey
            ? 'Replace pk_… with your publishable key: keys are shown once, when created. Lost it? Create another on the API keys page.'
            : 'Create a publishable key (step 2) and it is filled in here.'}
      </CopyBlock>
      <CopyBlock id="snippet-server" label="From your server, when a customer pays (amount in cents)" rows="4" code={server}>
        Needs a secret key with the events:write scope, from the <a href="/admin/api-keys">API keys</a> page.
      </CopyBlock>
    </div>
  );
}

/** A labelled block of code to copy, its Copy button and a hint. */
function CopyBlock(props: { id: string; label: string; rows: string; code: string; children: Children }) {
  return (
    <>
      <label for={props.id} safe>
        {props.label}
      </label>
      <textarea id={props.id} class="code" rows={props.rows} readonly spellcheck="false" safe>
        {props.code}
      </textarea>
      <p class="snippet-tools">
        <button type="button" class="secondary" data-copy={`#${props.id}`}>
          Copy
        </button>
        <span class="hint">{props.children}</span>
      </p>
    </>
  );
}

/** The newest event received; htmx asks for it again every 3 s (a reload does the same without script). */
export function LatestEventLine(props: { event: LatestEvent | null }) {
  const e = props.event;
  const text = e
    ? `Latest event: ${e.type} for ${e.userId}${e.amount !== null && e.currency ? `, ${formatMoney(e.amount, e.currency)}` : ''}, ${e.status.replace(/_/g, ' ')}, received ${e.createdAt.toISOString().slice(0, 19).replace('T', ' ')} UTC.`
    : 'No event received yet.';
  return (
    <p class="step-facts latest-event" id="latest-event" role="status" hx-get={LATEST} hx-trigger="every 3s" hx-swap="outerHTML" safe>
      {text}
    </p>
  );
}
