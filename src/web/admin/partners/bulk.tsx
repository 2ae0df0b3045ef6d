// Admin partners: the bulk actions of the list (invite again, move to a group, revoke), each confirmed first.
import { Elysia } from 'elysia';
import type { AppContext } from '../../../context';
import { AppError } from '../../../lib/errors';
import { reinvitePartner } from '../../../workflows/invite-partner';
import { movePartnersToGroup, type Group } from '../../../modules/groups/service';
import { partnersByIds } from '../../../modules/reports/partners';
import { revokePartner } from '../../../workflows/revoke-partner';
import { ConfirmPanel, isConfirmed } from '../../confirm';
import { Field, formList, type FormErrors } from '../../forms';
import { Notice } from '../../layout';
import { render, seeOther } from '../../render';
import type { AdminPage } from '../../session';
import { attr, Trunc } from '../../ui';
import { AdminLayout, type AdminKit } from '../kit';
import { LIST, MAX_BULK, allGroups, listBack, plural, revokePhrase } from './shared';
import { listView } from './list';

/** The bulk revoke confirmation: who, why, and the typed phrase. */
async function bulkRevokeView(ctx: AppContext, page: AdminPage, ids: string[], back: string, input: { reason?: string; errors?: FormErrors } = {}) {
  const found = await partnersByIds(ctx.sql, ids);
  const targets = found.filter((p) => p.status !== 'revoked');
  return (
    <AdminLayout page={page} title="Revoke partners" current={LIST}>
      <p class="back">
        <a href={listBack(back)}>Partners</a>
      </p>
      {targets.length === 0 ? (
        <div class="confirm-page">
          <h1>Revoke partners</h1>
          <Notice kind="error" text={ids.length === 0 ? 'Tick the partners to revoke first.' : 'None of the ticked partners can be revoked: they are revoked already.'} />
          <p>
            <a class="button secondary" href={listBack(back)}>
              Back to partners
            </a>
          </p>
        </div>
      ) : (
        <BulkRevokePanel page={page} targets={targets} skipped={found.length - targets.length} back={back} reason={input.reason} errors={input.errors} />
      )}
    </AdminLayout>
  ) as string;
}

export function bulkRoutes(ctx: AppContext, kit: AdminKit) {
  return new Elysia({ detail: { hide: true } })
    .post(`${LIST}/bulk-invite`, ({ request, body }) =>
      kit.form(request, body, LIST, async (page, form) => {
        const ids = formList(body, 'ids');
        if (ids.length === 0 || ids.length > MAX_BULK) {
          const error = ids.length === 0 ? 'Tick the partners to invite again first.' : `At most ${MAX_BULK} partners at once.`;
          return render(await listView(ctx, page, Object.fromEntries(new URLSearchParams(listBack(form.back).split('?')[1] ?? '')), { outcome: { error } }), { status: 400 });
        }
        let sent = 0;
        for (const id of ids) {
          try {
            await reinvitePartner(ctx, id);
            sent++;
          } catch (error) {
            // active, revoked or gone since the page was drawn: counted as skipped
            if (!(error instanceof AppError)) throw error;
          }
        }
        return seeOther(listBack(form.back, { invited: String(sent), skipped: String(ids.length - sent) }));
      }),
    )
    .post(`${LIST}/bulk-move`, ({ request, body }) =>
      kit.form(request, body, LIST, async (page, form) => {
        const ids = formList(body, 'ids');
        const back = form.back ?? '';
        const groups = await allGroups(ctx);
        const target = (form.groupId ?? '') === '' ? null : (groups.find((g) => g.id === form.groupId) ?? undefined);
        const refuse = async (error: string) =>
          render(await listView(ctx, page, Object.fromEntries(new URLSearchParams(listBack(back).split('?')[1] ?? '')), { outcome: { error } }), { status: 400 });
        if (ids.length === 0) return refuse('Tick the partners to move first.');
        if (ids.length > MAX_BULK) return refuse(`At most ${MAX_BULK} partners at once.`);
        if (target === undefined) return refuse('Choose the group to move them to: that group no longer exists.');
        const found = await partnersByIds(ctx.sql, ids);
        // nothing moves without the confirmation: the bulk bar's post answers the confirm page
        if (!isConfirmed(form)) return render(<BulkMovePage page={page} targets={found} group={target} back={back} />);
        const moved = await movePartnersToGroup(ctx.sql, found.map((p) => p.id), target?.id ?? null);
        return seeOther(listBack(back, { moved: String(moved) }));
      }),
    )
    .get(`${LIST}/bulk-revoke`, ({ request }) => kit.page(request, async (page) => render(await bulkRevokeView(ctx, page, [], ''))))
    .post(`${LIST}/bulk-revoke`, ({ request, body }) =>
      kit.form(request, body, LIST, async (page, form) => {
        const ids = formList(body, 'ids');
        const back = form.back ?? '';
        if (ids.length > MAX_BULK) return render(await listView(ctx, page, {}, { outcome: { error: `At most ${MAX_BULK} partners at once.` } }), { status: 400 });
        // nothing happens without the confirmation: the first post (the bulk bar) answers the confirm page
        if (!isConfirmed(form)) return render(await bulkRevokeView(ctx, page, ids, back));
        const targets = (await partnersByIds(ctx.sql, ids)).filter((p) => p.status !== 'revoked');
        const reason = (form.reason ?? '').trim();
        const errors: FormErrors = {};
        if (reason === '') errors.reason = 'say why, the partners are shown this reason';
        else if (reason.length > 1000) errors.reason = 'at most 1000 characters';
        if ((form.phrase ?? '').trim() !== revokePhrase(targets.length)) errors.phrase = `type ${revokePhrase(targets.length)} to confirm`;
        if (targets.length === 0 || Object.keys(errors).length > 0) return render(await bulkRevokeView(ctx, page, ids, back, { reason: form.reason, errors }), { status: 400 });
        let revoked = 0;
        for (const p of targets) {
          await revokePartner(ctx, p.id, { reason, revokeKeys: false });
          revoked++;
        }
        return seeOther(listBack(back, { revoked: String(revoked) }));
      }),
    );
}

function BulkRevokePanel(props: { page: AdminPage; targets: { id: string; name: string; email: string }[]; skipped: number; back: string; reason?: string; errors?: FormErrors }) {
  const n = props.targets.length;
  const phrase = revokePhrase(n);
  return (
    <ConfirmPanel
      title={`Revoke ${plural(n, 'partner')}`}
      action={`${LIST}/bulk-revoke`}
      button={`Revoke ${plural(n, 'partner')}`}
      csrf={props.page.csrf}
      danger
      fields={{ ids: props.targets.map((p) => p.id), back: props.back }}
      back={listBack(props.back)}
    >
      <p>
        Their sessions end at once and their links stop recording clicks. Commissions already earned stay. Each can be reinstated later from their page.
        {props.skipped > 0 ? ` ${plural(props.skipped, 'ticked partner is', 'ticked partners are')} revoked already and left as they are.` : ''}
      </p>
      <ul class="bulk-list" id="bulk-targets">
        {props.targets.map((p) => (
          <li>
            <Trunc text={p.name} />{' '}
            <span class="muted trunc" title={attr(p.email)} safe>
              {p.email}
            </span>
          </li>
        ))}
      </ul>
      <Field name="reason" label="Reason" hint="Every partner above is shown this reason." value={props.reason} error={props.errors?.reason} required />
      <Field name="phrase" label={`Type ${phrase} to confirm`} value="" error={props.errors?.phrase} required autocomplete="off" />
    </ConfirmPanel>
  );
}

/** The bulk move's confirmation: who moves to which group (or out of every group). */
function BulkMovePage(props: { page: AdminPage; targets: { id: string; name: string; email: string; groupId?: string | null }[]; group: Group | null; back: string }) {
  const n = props.targets.length;
  const where = props.group ? props.group.name : 'no group';
  const what = props.group
    ? `From their next commission on, these partners earn under the rules of ${props.group.name} where it has a rule for the event (a commission snapshot still wins). Commissions already earned do not change.`
    : "These partners leave their group: from their next commission on, they earn under each campaign's own rules. Commissions already earned do not change.";
  return (
    <AdminLayout page={props.page} title="Move partners" current={LIST}>
      <p class="back">
        <a href={listBack(props.back)}>Partners</a>
      </p>
      <ConfirmPanel
        title={`Move ${plural(n, 'partner')} to ${where}`}
        action={`${LIST}/bulk-move`}
        button={`Move ${plural(n, 'partner')}`}
        csrf={props.page.csrf}
        fields={{ ids: props.targets.map((p) => p.id), back: props.back, groupId: props.group?.id ?? '' }}
        back={listBack(props.back)}
      >
        <p safe>{what}</p>
        <ul class="bulk-list" id="bulk-targets">
          {props.targets.map((p) => (
            <li>
              <Trunc text={p.name} />{' '}
              <span class="muted trunc" title={attr(p.email)} safe>
                {p.email}
              </span>
            </li>
          ))}
        </ul>
      </ConfirmPanel>
    </AdminLayout>
  );
}
