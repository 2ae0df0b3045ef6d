// A group of checkboxes under one name (`fieldset.choices`): campaigns a partner may promote, the
// events an endpoint receives, a key's scopes. The error sits below it as `<name>-error`.
import type { Children } from '@kitajs/html';

export type Choice = { value: string; label: string };

export function ChoicesFieldset(props: {
  name: string;
  legend: string;
  choices: Choice[];
  ticked: (value: string) => boolean;
  error?: string;
  hint?: string;
  /** drawn before the choices: a hidden marker field, an "all" box */
  children?: Children;
}) {
  const errorId = `${props.name}-error`;
  return (
    <fieldset class={props.error ? 'choices invalid' : 'choices'} aria-describedby={props.error ? errorId : undefined}>
      <legend safe>{props.legend}</legend>
      {props.children}
      {props.choices.map((c) => (
        <label class="check">
          <input type="checkbox" name={props.name} value={c.value} checked={props.ticked(c.value)} /> <span safe>{c.label}</span>
        </label>
      ))}
      {!!props.hint && (
        <p class="hint" safe>
          {props.hint}
        </p>
      )}
      {!!props.error && (
        <p class="error" id={errorId} safe>
          {props.error}
        </p>
      )}
    </fieldset>
  );
}
