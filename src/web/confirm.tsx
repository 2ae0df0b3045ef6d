// Confirmations before money moves or something cannot be undone. One protocol, two faces:
// the action's form posts `confirmed=1`, and the route refuses to act without it (it answers the
// confirm page instead). With script, the same form sits in a <dialog> on the page, opened by the
// trigger link (assets/ui.js); without script, the trigger link opens the confirm page.
import type { Children } from '@kitajs/html';
import { CsrfInput } from './forms';
import { attr } from './ui';

/** Whether a posted form carries the confirmation (the dialog's or the confirm page's button). */
export const isConfirmed = (form: Record<string, string>) => form.confirmed === '1';

type ConfirmProps = {
  /** Verb + object: "Reverse 9.80 USD for Ann Archer". */
  title: string;
  /** Where the confirmed form posts. */
  action: string;
  /** The button repeats what happens: "Pay 1,240.00 USD to 12 partners". */
  button: string;
  csrf: string;
  /** Hidden fields posted with it (ids, filters to keep). */
  fields?: Record<string, string | string[]>;
  danger?: boolean;
  /** What happens, in words; fields the action asks for (a reason) go here too. */
  children?: Children;
};

function ConfirmForm(props: ConfirmProps & { cancel: Children }): JSX.Element {
  return (
    <form method="post" action={props.action} class="confirm-form">
      <CsrfInput token={props.csrf} />
      <input type="hidden" name="confirmed" value="1" />
      {Object.entries(props.fields ?? {}).flatMap(([name, value]) =>
        (Array.isArray(value) ? value : [value]).map((v) => <input type="hidden" name={name} value={v} />),
      )}
      <div class="confirm-body">{props.children}</div>
      <div class="actions confirm-actions">
        {props.cancel}
        <button type="submit" class={props.danger ? 'danger' : undefined} safe>
          {props.button}
        </button>
      </div>
    </form>
  );
}

/** The confirmation as a <dialog> on the page; Cancel (focused first) and Esc close it. */
export function ConfirmDialog(props: ConfirmProps & { id: string }): JSX.Element {
  return (
    <dialog id={props.id} class="confirm" aria-labelledby={`${props.id}-title`}>
      <h2 id={`${props.id}-title`} safe>
        {props.title}
      </h2>
      <ConfirmForm
        {...props}
        cancel={
          <button type="submit" formmethod="dialog" formnovalidate class="secondary" data-safe value="cancel">
            Cancel
          </button>
        }
      />
    </dialog>
  );
}

/** The same confirmation as the body of a page (no script, or a direct visit). */
export function ConfirmPanel(props: ConfirmProps & { back: string }): JSX.Element {
  return (
    <section class="confirm-page" aria-labelledby="confirm-title">
      <h1 id="confirm-title" safe>
        {props.title}
      </h1>
      <ConfirmForm
        {...props}
        cancel={
          <a class="button secondary" href={props.back}>
            Cancel
          </a>
        }
      />
    </section>
  );
}

/** What opens a confirmation: the confirm page's link, upgraded to open `dialog` when script runs. */
export function ConfirmTrigger(props: { href: string; dialog: string; label: string; danger?: boolean; secondary?: boolean; title?: string }): JSX.Element {
  const cls = ['button', props.danger ? 'danger' : '', props.secondary ? 'secondary' : ''].filter(Boolean).join(' ');
  return (
    <a class={cls} href={props.href} data-dialog={props.dialog} title={props.title ? attr(props.title) : undefined} safe>
      {props.label}
    </a>
  );
}
