// A real SMTP server in-process that keeps every message it receives, parsed.
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { eventually } from './eventually';

export type CaughtMail = { to: string; subject: string; text: string; raw: ParsedMail };

export type MailCatcher = {
  url: string;
  messages: CaughtMail[];
  /** Waits for a message to `to` matching `filter`; fails after `ms`. */
  waitFor(to: string, filter?: (m: CaughtMail) => boolean, ms?: number): Promise<CaughtMail>;
  /** The magic link in the newest message to `to` (waiting for it). */
  magicLink(to: string, filter?: (m: CaughtMail) => boolean): Promise<string>;
  stop(): Promise<void>;
};

export async function startMailCatcher(): Promise<MailCatcher> {
  const messages: CaughtMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      simpleParser(stream)
        .then((parsed) => {
          for (const rcpt of session.envelope.rcptTo) {
            messages.push({ to: rcpt.address.toLowerCase(), subject: parsed.subject ?? '', text: parsed.text ?? '', raw: parsed });
          }
          callback();
        })
        .catch(callback);
    },
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', () => ok()));
  const port = (server.server.address() as { port: number }).port;

  const find = (to: string, filter?: (m: CaughtMail) => boolean) =>
    messages.findLast((m) => m.to === to.toLowerCase() && (!filter || filter(m)));

  const waitFor: MailCatcher['waitFor'] = (to, filter, ms) =>
    eventually(
      () => {
        const found = find(to, filter);
        if (!found) throw new Error(`no mail to ${to} (have: ${messages.map((m) => `${m.to}: ${m.subject}`).join(' | ')})`);
        return found;
      },
      { timeout: ms },
    );

  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    waitFor,
    async magicLink(to, filter) {
      const mail = await waitFor(to, (m) => /\/auth\/magic\?token=/.test(m.text) && (!filter || filter(m)));
      return mail.text.match(/https?:\/\/\S+\/auth\/magic\?token=\S+/)![0];
    },
    stop: () => new Promise<void>((ok) => server.close(() => ok())),
  };
}
