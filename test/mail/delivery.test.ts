// How the outbox sends: retries with backoff when the SMTP server refuses, gives up after the last
// attempt, never sends a row twice with several workers (replicas) on one database, and after a
// SIGKILL mid-send sends the claimed row exactly once when the lease runs out.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { openSql } from '../../src/db';
import { createMailer } from '../../src/mail';
import { enqueueEmail } from '../../src/mail/outbox';
import { createMailWorker, MAX_ATTEMPTS, RETRY_DELAYS_MS } from '../../src/mail/worker';
import { eventually } from '../support/eventually';
import { createTestDatabase } from '../support/postgres';
import { spawnService, type ServiceProcess } from '../support/process';
import { startService, type TestService } from '../support/service';

/** An SMTP server the test steers: refuse the next N recipients, hold DATA open, delay each message. */
type Smtp = {
  url: string;
  received: { to: string; messageId: string; subject: string }[];
  refuse: number;
  hold: boolean;
  /** Resolves when a message's DATA has started (the hold is on). */
  dataStarted: Promise<void>;
  delayMs: number;
  stop(): Promise<void>;
};

async function startSmtp(): Promise<Smtp> {
  let started!: () => void;
  const state: Smtp = {
    url: '',
    received: [],
    refuse: 0,
    hold: false,
    dataStarted: new Promise<void>((ok) => (started = ok)),
    delayMs: 0,
    stop: async () => undefined,
  };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onRcptTo(address, _session, callback) {
      if (state.refuse > 0) {
        state.refuse--;
        const error = Object.assign(new Error('mailbox busy, try later'), { responseCode: 451 });
        return callback(error);
      }
      callback();
    },
    onData(stream, session, callback) {
      if (state.hold) {
        started();
        stream.resume(); // read it, never answer: the sender waits until it dies
        return;
      }
      simpleParser(stream)
        .then(async (mail) => {
          if (state.delayMs) await Bun.sleep(state.delayMs);
          for (const rcpt of session.envelope.rcptTo) state.received.push({ to: rcpt.address, messageId: mail.messageId ?? '', subject: mail.subject ?? '' });
          callback();
        })
        .catch(callback);
    },
  });
  server.on('error', () => undefined);
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', () => ok()));
  state.url = `smtp://127.0.0.1:${(server.server.address() as { port: number }).port}`;
  state.stop = () => new Promise<void>((ok) => server.close(() => ok()));
  return state;
}

const ADMIN_TEMPLATE = (n: number) => ({
  template: 'partner_signup',
  to: `ops${n}@operator.example`,
  data: { partnerId: `ptn_${n}`, name: `Signup ${n}`, email: `s${n}@example.com`, status: 'pending' },
});

describe('retries and replicas', () => {
  let smtp: Smtp;
  let svc: TestService;
  beforeAll(async () => {
    smtp = await startSmtp();
    // a timeout that only bounds a broken run: at 2 s, a loaded machine could time out a send to this
    // process's SMTP server, and the retry would be a second attempt the tests below count
    svc = await startService({ SMTP_URL: smtp.url, MAIL_TIMEOUT_MS: '10000' });
  }, 60_000);
  afterAll(async () => {
    await svc.stop();
    await smtp.stop();
  });

  const row = async (id: string) => (await svc.sql`select status, attempts, last_error, next_attempt_at, sent_at from email_outbox where id = ${id}`)[0]!;
  const dueIn = async (id: string) => {
    const [r] = await svc.sql<{ ms: number }[]>`select extract(epoch from next_attempt_at - now()) * 1000 as ms from email_outbox where id = ${id}`;
    return Number(r!.ms);
  };

  test('an SMTP refusal is retried after 1 min, then 5 min; the third attempt is sent once', async () => {
    smtp.refuse = 2;
    const id = (await enqueueEmail(svc.sql, ADMIN_TEMPLATE(1)))!;
    await svc.deliverEmails();
    expect(await row(id)).toMatchObject({ status: 'pending', attempts: 1, sent_at: null });
    expect((await row(id)).last_error).toContain('mailbox busy');
    expect(await dueIn(id)).toBeGreaterThan(RETRY_DELAYS_MS[0]! - 5000);
    expect(await dueIn(id)).toBeLessThanOrEqual(RETRY_DELAYS_MS[0]!);

    // the clock moves on: due now
    await svc.sql`update email_outbox set next_attempt_at = now() where id = ${id}`;
    await svc.deliverEmails();
    expect(await row(id)).toMatchObject({ status: 'pending', attempts: 2 });
    expect(await dueIn(id)).toBeGreaterThan(RETRY_DELAYS_MS[1]! - 5000);

    await svc.sql`update email_outbox set next_attempt_at = now() where id = ${id}`;
    await svc.deliverEmails();
    expect(await row(id)).toMatchObject({ status: 'sent', attempts: 3, last_error: null });
    expect(smtp.received.filter((m) => m.messageId === `<${id}@127.0.0.1>`)).toHaveLength(1);
  });

  test(`after ${MAX_ATTEMPTS} failed attempts the email is given up (failed, with the error)`, async () => {
    smtp.refuse = 1_000;
    const id = (await enqueueEmail(svc.sql, ADMIN_TEMPLATE(2)))!;
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      await svc.sql`update email_outbox set next_attempt_at = now() where id = ${id}`;
      await svc.deliverEmails();
      expect(await row(id), `attempt ${attempt}`).toMatchObject({ attempts: attempt, status: attempt < MAX_ATTEMPTS ? 'pending' : 'failed' });
    }
    expect((await row(id)).last_error).toContain('mailbox busy');
    await svc.sql`update email_outbox set next_attempt_at = now() where id = ${id}`;
    await svc.deliverEmails();
    expect((await row(id)).attempts).toBe(MAX_ATTEMPTS); // no attempt after giving up
    smtp.refuse = 0;
  });

  test('three workers on one database (the service and two replicas) send each of 60 emails exactly once', async () => {
    smtp.delayMs = 15;
    const sent = [0, 0];
    const replicas = [0, 1].map((i) => {
      const sql = openSql(svc.config.databaseUrl!, { max: 4 });
      const mailer = createMailer(svc.config, svc.ctx.log);
      const counting = { send: async (m: Parameters<typeof mailer.send>[0]) => { await mailer.send(m); sent[i]!++; }, close: () => mailer.close() };
      return { sql, mailer: counting, worker: createMailWorker(svc.ctx, { sql, mailer: counting, pollMs: 50, batch: 4 }) };
    });
    await Promise.all(replicas.map((r) => r.worker.start()));
    try {
      const before = smtp.received.length;
      const ids = await svc.sql.begin(async (tx) => {
        const out: string[] = [];
        for (let i = 0; i < 60; i++) out.push((await enqueueEmail(tx, ADMIN_TEMPLATE(100 + i)))!);
        return out;
      });
      await eventually(async () => {
        const [r] = await svc.sql<{ n: number }[]>`select count(*)::int as n from email_outbox where id = any(${ids}) and status = 'sent'`;
        expect(r!.n).toBe(60);
      }, { timeout: 30_000 });
      const got = smtp.received.slice(before).map((m) => m.messageId);
      expect(got).toHaveLength(60);
      expect(new Set(got).size).toBe(60);
      expect(new Set(got)).toEqual(new Set(ids.map((id) => `<${id}@127.0.0.1>`)));
      expect(sent.filter((n) => n > 0).length).toBeGreaterThanOrEqual(1); // the replicas took part
      const [attempts] = await svc.sql<{ max: number }[]>`select max(attempts)::int as max from email_outbox where id = any(${ids})`;
      expect(attempts!.max).toBe(1);
    } finally {
      for (const r of replicas) {
        await r.worker.stop();
        r.mailer.close();
        await r.sql.end();
      }
      smtp.delayMs = 0;
    }
  }, 60_000);
});

describe('a crash mid-send', () => {
  const children: ServiceProcess[] = [];
  const databases: { drop(): Promise<void> }[] = [];
  const servers: Smtp[] = [];
  afterAll(async () => {
    for (const c of children) if (c.proc.exitCode === null && !c.proc.signalCode) c.proc.kill('SIGKILL');
    await Promise.all(children.map((c) => c.proc.exited));
    for (const d of databases) await d.drop();
    for (const s of servers) await s.stop();
  });

  test('SIGKILL while the SMTP server holds the message: after a restart it arrives exactly once', async () => {
    const db = await createTestDatabase(await globalThis.__partnerdTestServer!);
    databases.push(db);
    const hanging = await startSmtp();
    const good = await startSmtp();
    servers.push(hanging, good);
    hanging.hold = true;
    const env = { MAIL_TIMEOUT_MS: '1000' }; // lease: 3 x 1 s + 5 s

    const first = await spawnService(db.url, { ...env, SMTP_URL: hanging.url });
    children.push(first);
    const id = (await enqueueEmail(db.sql, ADMIN_TEMPLATE(7)))!;
    await hanging.dataStarted; // claimed, and in the middle of the SMTP conversation
    first.proc.kill('SIGKILL');
    expect(await first.exited()).toBeNull();
    const [claimed] = await db.sql`select status, attempts, lease_until > now() as leased from email_outbox where id = ${id}`;
    expect(claimed).toEqual({ status: 'pending', attempts: 1, leased: true });

    const second = await spawnService(db.url, { ...env, SMTP_URL: good.url });
    children.push(second);
    await eventually(async () => {
      const [r] = await db.sql`select status from email_outbox where id = ${id}`;
      expect(r!.status).toBe('sent');
    }, { timeout: 30_000 });
    // a clean stop waits for every send under way: whatever the second service would ever send is sent
    second.proc.kill('SIGTERM');
    expect(await second.exited()).toBe(0);
    expect(good.received.filter((m) => m.messageId === `<${id}@127.0.0.1>`)).toHaveLength(1);
    expect(hanging.received).toEqual([]);
    const [done] = await db.sql`select attempts from email_outbox where id = ${id}`;
    expect(done!.attempts).toBe(2);
  }, 90_000);
});
