// A confirmation that cannot go ahead (nothing ticked can take the change, the row already took it):
// its title, why, and the way back to the list.
import { Notice } from '../../layout';

export function RefusedPanel(props: { title: string; text: string; back: string }) {
  return (
    <section class="confirm-page">
      <h1 safe>{props.title}</h1>
      <Notice kind="error" text={props.text} />
      <p>
        <a class="button secondary" href={props.back}>
          Back to the list
        </a>
      </p>
    </section>
  );
}
