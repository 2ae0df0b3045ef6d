// The links table both sides draw (`table#links`): a link per row with its address and Copy button,
// then that side's numbers. The admin's partner page and the portal fill it with their own heads,
// copy cell and figures.
import type { Children } from '@kitajs/html';

export function LinkStatsFrame<L extends { id: string; slug: string }>(props: {
  links: L[];
  caption: string;
  /** the heads after "Link" */
  heads: Children;
  /** the inside of the link cell: the address and its Copy button */
  copy: (link: L) => JSX.Element;
  /** the cells after the link cell */
  cells: (link: L) => JSX.Element;
  /** set `data-id` on each row too */
  rowIds?: boolean;
}) {
  return (
    <div class="table-wrap">
      <table id="links" class="stack">
        <caption class="vh" safe>
          {props.caption}
        </caption>
        <thead>
          <tr>
            <th scope="col">Link</th>
            {props.heads}
          </tr>
        </thead>
        <tbody>
          {props.links.map((l) => (
            <tr data-slug={l.slug} data-id={props.rowIds ? l.id : undefined}>
              <td class="lead link-cell">{props.copy(l)}</td>
              {props.cells(l)}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
