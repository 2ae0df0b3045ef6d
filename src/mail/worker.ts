// The email worker: runs in every service process. It wakes on NOTIFY from the outbox and also polls;
// claims due rows with FOR UPDATE SKIP LOCKED and a lease (longer than one SMTP send may take), sends
// each over SMTP with the row id as its Message-ID, and marks it sent. Two replicas never hold the same
// row; a process killed mid-send leaves a lease that runs out, and the row is sent by whoever claims it
// next. The one window left: the SMTP server accepted the message and the process died before the
// "sent" commit; then the email goes out twice, with the same Message-ID.
import type { AppContext } from '../context';
import type { Sql } from '../db';
import { createWakeLoop } from '../db/wake-loop';
import type { Mailer } from './index';
import { loadBrand, type MailSettings } from './brand';
import { composeEmail, messageIdOf, toMessage } from './compose';
import { ADMINS, EMAIL_CHANNEL } from './outbox';
import { templateOf } from './registry';

/** Waits after the 1st, 2nd, ... failed attempt; after the last one the email is given up (failed). */
export const RETRY_DELAYS_MS = [60_000, 5 * 60_000, 30 * 60_000, 2 * 3_600_000, 6 * 3_600_000];
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;

export type MailWorkerOptions = {
  /** A separate database handle (the test of two replicas uses one each). */
  sql?: Sql;
  mailer?: Mailer;
  pollMs?: number;
  /** Emails sent at once (per process). */
  batch?: number;
  /**
   * Which team roles get the admins' emails, by template (modules/auth/roles.ts noticeRoles); without
   * it, owners and admins. ADMIN_EMAILS addresses get every one.
   */
  noticeRoles?: NoticeRoles;
};

export type NoticeRoles = { byTemplate: Record<string, readonly string[]>; otherwise: readonly string[] };

export type MailWorker = {
  start(): Promise<void>;
  /** Stops claiming and waits for sends under way to be recorded. */
  stop(): Promise<void>;
  wake(): void;
  /** Sends everything due now and waits until it is recorded (tests). */
  drain(): Promise<void>;
};

type Claimed = { id: string; template: string; to_address: string; data: unknown; partner_id: string | null; attempts: number };

export function leaseMsOf(ctx: AppContext): number {
  return ctx.config.mailTimeoutMs * 3 + 5000; // connect, greeting and data may each take the timeout
}

export function createMailWorker(ctx: AppContext, options: MailWorkerOptions = {}): MailWorker {
  const sql = options.sql ?? ctx.sql;
  const mailer = options.mailer ?? ctx.mailer;
  const pollMs = options.pollMs ?? 2000;
  const batch = Math.max(1, options.batch ?? 8);
  const lease = leaseMsOf(ctx);
  const log = ctx.log.child({ component: 'mail' });

  /**
   * Turns each due email to the admins into one row per recipient (sent like any other): every
   * ADMIN_EMAILS address, and each team member whose role the template is for (options.noticeRoles).
   */
  async function fanOut(): Promise<void> {
    const roles = options.noticeRoles ?? { byTemplate: {}, otherwise: ['owner', 'admin'] };
    await sql`
      with due as (
        select id from email_outbox
        where to_address = ${ADMINS} and status = 'pending'
        order by id limit 100
        for update skip locked
      ), gone as (
        update email_outbox o set status = 'fanned_out', sent_at = now() from due where o.id = due.id
        returning o.id, o.template, o.data
      )
      insert into email_outbox (id, template, to_address, data)
      select 'eml_' || substr(g.id, 5, 18) || lpad(to_hex(a.n::int), 8, '0'), g.template, a.address, g.data
      from gone g cross join lateral (
        select address, row_number() over (order by address) as n from (
          select unnest(${ctx.config.adminEmails}::text[]) as address
          union
          select t.email from team_members t
          where t.source <> 'env' and t.role = any(array(select jsonb_array_elements_text(
            coalesce(${sql.json(roles.byTemplate as never)}::jsonb -> g.template, ${sql.json(roles.otherwise as never)}::jsonb))))
        ) recipients
      ) a`;
  }

  async function claim(): Promise<Claimed[]> {
    return sql<Claimed[]>`
      with due as (
        select id from email_outbox
        where status = 'pending' and next_attempt_at <= now() and (lease_until is null or lease_until < now())
          and to_address <> ${ADMINS}
        order by next_attempt_at, id
        limit ${batch}
        for update skip locked
      )
      update email_outbox o
      set lease_until = now() + ${lease} * interval '1 millisecond', attempts = o.attempts + 1
      from due
      where o.id = due.id
      returning o.id, o.template, o.to_address, o.data, o.partner_id, o.attempts`;
  }

  async function sendOne(row: Claimed, brand: MailSettings): Promise<void> {
    const template = templateOf(row.template);
    if (!template) {
      await sql`update email_outbox set status = 'failed', last_error = ${`unknown template ${row.template}`}, lease_until = null where id = ${row.id}`;
      return;
    }
    if (template.notification && row.partner_id) {
      const [p] = await sql<{ on: boolean }[]>`
        select coalesce((notifications ->> ${template.notification}::text)::boolean, true) as on from partners where id = ${row.partner_id}`;
      if (p && !p.on) {
        await sql`update email_outbox set status = 'skipped', lease_until = null where id = ${row.id} and status = 'pending'`;
        return;
      }
    }
    try {
      const data = template.load ? await template.load(sql, row.data) : row.data;
      const composed = composeEmail(template, data, brand, { address: row.to_address, partnerId: row.partner_id });
      await mailer.send(toMessage(composed, row.to_address, messageIdOf(row.id, ctx.config.baseUrl)));
    } catch (error) {
      const giveUp = row.attempts >= MAX_ATTEMPTS;
      const delay = RETRY_DELAYS_MS[Math.min(row.attempts, RETRY_DELAYS_MS.length) - 1] ?? 0;
      const message = error instanceof Error ? error.message.slice(0, 500) : String(error).slice(0, 500);
      log.warn(giveUp ? 'email given up' : 'email failed; will retry', { emailId: row.id, template: row.template, attempt: row.attempts, error: message });
      ctx.metrics.inc('partnerd_emails_total', { outcome: giveUp ? 'failed' : 'retry' });
      await sql`
        update email_outbox set
          status = ${giveUp ? 'failed' : 'pending'}, last_error = ${message}, lease_until = null,
          next_attempt_at = now() + ${delay} * interval '1 millisecond'
        where id = ${row.id} and status = 'pending'`;
      return;
    }
    ctx.metrics.inc('partnerd_emails_total', { outcome: 'sent' });
    await sql`update email_outbox set status = 'sent', sent_at = now(), lease_until = null, last_error = null where id = ${row.id} and status = 'pending'`;
  }

  /** One pass: fan out the admins' emails, then claim and send until nothing is due. */
  async function sendDue(): Promise<void> {
    while (loop.running) {
      await fanOut();
      const rows = await claim();
      if (rows.length === 0) break;
      const brand = await loadBrand(sql, ctx.config.baseUrl);
      await Promise.all(rows.map((row) => sendOne(row, brand).catch((error) => log.error('recording an email failed', { emailId: row.id, error }))));
    }
  }

  const loop = createWakeLoop({ sql, channel: EMAIL_CHANNEL, pollMs, log, pass: sendDue, failure: 'claiming emails failed' });

  return {
    wake: loop.wake,
    async drain() {
      await loop.idle();
      loop.wake();
      await loop.idle();
    },
    async start() {
      if (loop.running) return;
      ctx.metrics.gauge('partnerd_emails_due', async () => {
        const [row] = await sql<{ n: number }[]>`select count(*)::int as n from email_outbox where status = 'pending' and next_attempt_at <= now()`;
        return row?.n ?? 0;
      });
      await loop.start();
    },
    stop: loop.stop,
  };
}
