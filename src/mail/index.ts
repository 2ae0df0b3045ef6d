// Outgoing mail: nodemailer over SMTP_URL, or the log when it is unset.
import nodemailer from 'nodemailer';
import type { Config } from '../config';
import type { Logger } from '../lib/log';

export type Message = {
  to: string;
  subject: string;
  text: string;
  html?: string;
  /** Extra headers (List-Unsubscribe and List-Unsubscribe-Post on partner emails). */
  headers?: Record<string, string>;
  /** A stable Message-ID (the outbox row's), so that a resend after a crash is recognisably the same email. */
  messageId?: string;
};
export type Mailer = { send(message: Message): Promise<void>; close(): void };

export function createMailer(config: Pick<Config, 'smtpUrl' | 'mailFrom' | 'mailTimeoutMs'>, log: Logger): Mailer {
  if (!config.smtpUrl) {
    return {
      async send(message) {
        log.info('mail (SMTP_URL unset, not sent)', { to: message.to, subject: message.subject, text: message.text });
      },
      close() {},
    };
  }
  const timeout = config.mailTimeoutMs;
  // bounded below the outbox lease: a send that hangs must end before another worker may take the row
  const transport = nodemailer.createTransport({ url: config.smtpUrl, connectionTimeout: timeout, greetingTimeout: timeout, socketTimeout: timeout });
  return {
    async send(message) {
      await transport.sendMail({ from: config.mailFrom, ...message });
      log.info('mail sent', { to: message.to, subject: message.subject });
    },
    close() {
      transport.close();
    },
  };
}

/** Sends without failing the caller: a mail outage must not undo a committed change. */
export async function sendQuietly(mailer: Mailer, log: Logger, message: Message): Promise<boolean> {
  try {
    await mailer.send(message);
    return true;
  } catch (error) {
    log.error('mail failed', { to: message.to, subject: message.subject, error });
    return false;
  }
}
