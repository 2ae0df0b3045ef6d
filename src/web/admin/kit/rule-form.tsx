// The frame the campaign and group editors share: a form that asks the server for its summary in
// words as it changes (htmx), its CSRF token and error notice, the rule rows with their "add"
// button, the summary section and the submit and cancel buttons. Each editor fills in its own
// fields, rule rows and summary.
import type { Children } from '@kitajs/html';
import { CsrfInput, type FormErrors } from '../../forms';
import { Notice } from '../../layout';

export function RuleForm(props: { id: string; action: string; summaryAction: string; csrf: string; errors: FormErrors; children: Children }) {
  const errorCount = Object.keys(props.errors).length;
  return (
    <form
      method="post"
      action={props.action}
      novalidate
      id={props.id}
      class="campaign-form"
      hx-post={props.summaryAction}
      hx-trigger="change delay:200ms, input delay:500ms, rules-changed"
      hx-target="#rule-summary"
      hx-swap="outerHTML"
      hx-sync="this:replace"
    >
      <CsrfInput token={props.csrf} />
      {errorCount > 0 && (
        <Notice kind="error" text={props.errors._form ?? `${errorCount === 1 ? 'One field needs' : `${errorCount} fields need`} attention; nothing was saved.`} />
      )}
      {props.children}
    </form>
  );
}

/** The rule rows, then the button that adds a row (a plain submit without JavaScript). */
export function RulesSection(props: { children: Children }) {
  return (
    <>
      {props.children}
      <div class="actions">
        <button type="submit" name="_more" value="1" class="secondary" data-add-rule>
          Add another rule
        </button>
      </div>
    </>
  );
}

export function SummarySection(props: { children: Children }) {
  return (
    <section class="summary" aria-labelledby="summary-title">
      <h3 id="summary-title">In plain words</h3>
      {props.children}
    </section>
  );
}

export function SubmitActions(props: { submit: string; cancel?: string }) {
  return (
    <div class="actions">
      <button type="submit" safe>
        {props.submit}
      </button>
      {!!props.cancel && (
        <a class="button secondary" href={props.cancel}>
          Cancel
        </a>
      )}
    </div>
  );
}
