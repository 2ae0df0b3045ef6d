// Every setting of the service: one schema, its defaults, parsed once at start.
// This is the only file that reads process.env.
import { Type as T, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { Cron } from 'croner';

const Bool = T.Union([T.Literal('true'), T.Literal('false'), T.Literal('1'), T.Literal('0')]);

const EnvSchema = T.Object({
  /** HTTP port the service listens on. */
  PORT: T.String({ default: '3000', pattern: '^[0-9]{1,5}$' }),
  /** Public address of the service; used in magic links and share links. */
  BASE_URL: T.String({ default: 'http://localhost:3000', pattern: '^https?://[^\\s/]+(/[^\\s]*)?$' }),
  /** PostgreSQL connection string; unset starts the embedded PostgreSQL in DATA_DIR. */
  DATABASE_URL: T.Optional(T.String({ pattern: '^postgres(ql)?://' })),
  /** Where the embedded PostgreSQL keeps its files. */
  DATA_DIR: T.String({ default: './data', minLength: 1 }),
  /** Admin API key (8-256 visible characters; `sk_admin_` + 32 random is best); unset: generated at first boot and printed once. */
  ADMIN_API_KEY: T.Optional(T.String({ pattern: '^[\\x21-\\x7e]{8,256}$' })),
  /** Comma-separated emails allowed to sign in to the admin UI by magic link. */
  ADMIN_EMAILS: T.String({ default: '' }),
  /** SMTP server for outgoing mail (smtp:// or smtps://); unset writes mail to the log. */
  SMTP_URL: T.Optional(T.String({ pattern: '^smtps?://' })),
  /** Sender address of outgoing mail. */
  MAIL_FROM: T.String({ default: 'Partnerd <partnerd@localhost>', minLength: 3 }),
  /** Time limit of each step of one SMTP send (connect, greeting, each reply), in milliseconds; the outbox lease is three times this plus 5 s. */
  MAIL_TIMEOUT_MS: T.String({ default: '30000', pattern: '^[0-9]{1,7}$' }),
  /** When partners' monthly statements are written (cron expression, UTC; once per partner per month). */
  STATEMENT_CRON: T.String({ default: '0 8 1 * *' }),
  /** `open` lets partners sign themselves up; `review` takes applications an admin approves; `closed` (default) neither. */
  PARTNER_SIGNUP: T.Union([T.Literal('open'), T.Literal('closed'), T.Literal('review')], { default: 'closed' }),
  /** Days a commission is held before automatic approval, when its campaign says nothing. */
  HOLDBACK_DAYS: T.String({ default: '30', pattern: '^[0-9]{1,4}$' }),
  /** When the holdback approval job runs (cron expression, UTC). */
  APPROVAL_CRON: T.String({ default: '0 * * * *' }),
  /** When the payout run happens (cron expression, UTC). */
  PAYOUT_CRON: T.String({ default: '0 6 1 * *' }),
  /** Smallest payout in major units, per currency; smaller sums wait for the next run. */
  MIN_PAYOUT: T.String({ default: '0', pattern: '^[0-9]{1,12}(\\.[0-9]{1,3})?$' }),
  /** Clicks from one network (IPv4 address, IPv6 /64) on one link in one clock hour that may earn; the rest are kept as click_flood. 0: no limit. */
  FRAUD_CLICKS_PER_IP_HOUR: T.String({ default: '20', pattern: '^[0-9]{1,6}$' }),
  /** Commissions above this amount (major units of their currency) are held for review (flag review_amount); unset: off. */
  REVIEW_ABOVE: T.Optional(T.String({ pattern: '^[0-9]{1,12}(\\.[0-9]{1,3})?$' })),
  /** Time limit of one webhook delivery, in milliseconds. */
  WEBHOOK_TIMEOUT_MS: T.String({ default: '10000', pattern: '^[0-9]{1,7}$' }),
  /** Webhook deliveries one process sends at once. */
  WEBHOOK_CONCURRENCY: T.String({ default: '32', pattern: '^[0-9]{1,4}$' }),
  /** Retry failed webhook deliveries automatically on a backoff schedule. */
  WEBHOOK_AUTO_RETRY: T.Optional(Bool),
  /** Allow plain-HTTP webhook subscribers. */
  WEBHOOK_ALLOW_HTTP: T.Optional(Bool),
  /** Allow webhook subscribers on private, loopback and link-local addresses. */
  WEBHOOK_ALLOW_PRIVATE: T.Optional(Bool),
  /** Stripe webhook signing secret; mounts POST /webhooks/stripe when set. */
  STRIPE_WEBHOOK_SECRET: T.Optional(T.String({ minLength: 1 })),
  /** Stripe API key; enables Connect transfers for payouts when set. */
  STRIPE_SECRET_KEY: T.Optional(T.String({ minLength: 1 })),
  /** Paddle Billing notification destination secret; mounts POST /webhooks/paddle when set. */
  PADDLE_WEBHOOK_SECRET: T.Optional(T.String({ minLength: 1 })),
  /** Lemon Squeezy webhook signing secret; mounts POST /webhooks/lemonsqueezy when set. */
  LEMONSQUEEZY_WEBHOOK_SECRET: T.Optional(T.String({ minLength: 1 })),
  /** Group commit of POST /v1/events and /attribution/events: most events one transaction writes. 1: no grouping. */
  EVENT_BATCH_MAX: T.String({ default: '200', pattern: '^[0-9]{1,4}$' }),
  /** Group commit: how long the first event of a batch waits for others, in milliseconds. */
  EVENT_BATCH_WAIT_MS: T.String({ default: '2', pattern: '^[0-9]{1,4}$' }),
  /** Group commit: batch transactions one process runs at once (lanes; a user's events always take the same one). */
  EVENT_BATCH_CONCURRENCY: T.String({ default: '4', pattern: '^[0-9]{1,3}$' }),
  /** Reverse proxies in front of the service whose X-Forwarded-For entries are trusted (0: use the socket address). */
  TRUST_PROXY: T.String({ default: '0', pattern: '^[0-9]{1,2}$' }),
  /** Stripe API address; unset is Stripe's own. For stripe-mock or a test double. */
  STRIPE_API_URL: T.Optional(T.String({ pattern: '^https?://[^\\s/]+/?$' })),
  /** PayPal REST app client id; with PAYPAL_CLIENT_SECRET, PayPal payouts go out through PayPal's API (else by upload file). */
  PAYPAL_CLIENT_ID: T.Optional(T.String({ minLength: 1 })),
  /** PayPal REST app secret. */
  PAYPAL_CLIENT_SECRET: T.Optional(T.String({ minLength: 1 })),
  /** PayPal API address (https://api-m.sandbox.paypal.com for the sandbox, a local stand-in in tests). */
  PAYPAL_API_URL: T.String({ default: 'https://api-m.paypal.com', pattern: '^https?://[^\\s/]+/?$' }),
  /** The id of the PayPal webhook that sends payout item events to POST /webhooks/paypal; mounts that route when set. */
  PAYPAL_WEBHOOK_ID: T.Optional(T.String({ minLength: 1 })),
  /** Hours a partner's payouts wait after their payout method changes (a stolen session must not redirect money silently). */
  PAYOUT_METHOD_HOLD_HOURS: T.String({ default: '24', pattern: '^[0-9]{1,4}$' }),
  /** Log verbosity. */
  LOG_LEVEL: T.Union(
    [T.Literal('debug'), T.Literal('info'), T.Literal('warn'), T.Literal('error'), T.Literal('silent')],
    { default: 'info' },
  ),
});

type Env = Static<typeof EnvSchema>;

export type Config = {
  port: number;
  baseUrl: string;
  databaseUrl: string | undefined;
  dataDir: string;
  adminApiKey: string | undefined;
  adminEmails: string[];
  smtpUrl: string | undefined;
  mailFrom: string;
  mailTimeoutMs: number;
  statementCron: string;
  partnerSignup: 'open' | 'closed' | 'review';
  holdbackDays: number;
  approvalCron: string;
  payoutCron: string;
  minPayout: string;
  fraudClicksPerIpHour: number;
  reviewAbove: string | undefined;
  webhookTimeoutMs: number;
  webhookConcurrency: number;
  webhookAutoRetry: boolean;
  webhookAllowHttp: boolean;
  webhookAllowPrivate: boolean;
  stripeWebhookSecret: string | undefined;
  stripeSecretKey: string | undefined;
  paddleWebhookSecret: string | undefined;
  lemonSqueezyWebhookSecret: string | undefined;
  trustProxy: number;
  eventBatch: { maxSize: number; maxWaitMs: number; concurrency: number };
  stripeApiUrl: string | undefined;
  paypal: { clientId: string | undefined; clientSecret: string | undefined; apiUrl: string; webhookId: string | undefined };
  payoutMethodHoldHours: number;
  logLevel: 'debug' | 'info' | 'warn' | 'error' | 'silent';
};

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Settings whose values may hold secrets: a bad one is named, never echoed. */
const SECRETS = new Set(['ADMIN_API_KEY', 'DATABASE_URL', 'SMTP_URL', 'STRIPE_WEBHOOK_SECRET', 'STRIPE_SECRET_KEY', 'PADDLE_WEBHOOK_SECRET', 'LEMONSQUEEZY_WEBHOOK_SECRET', 'PAYPAL_CLIENT_SECRET']);

/** Parses the environment into a Config, or throws a ConfigError naming every bad variable. */
export function loadConfig(source: Record<string, string | undefined> = process.env): Config {
  const raw: Record<string, string> = {};
  for (const key of Object.keys(EnvSchema.properties)) {
    const value = source[key];
    if (value !== undefined && value !== '') raw[key] = value;
  }
  const env = Value.Default(EnvSchema, raw) as Env;
  const problems: string[] = [];
  for (const error of Value.Errors(EnvSchema, env)) {
    const name = error.path.replace(/^\//, '');
    const got = SECRETS.has(name) ? 'value not shown' : `got ${JSON.stringify(error.value)}`;
    problems.push(`${name}: ${describe(error.schema as never)} (${got})`);
  }
  const emails = env.ADMIN_EMAILS.split(',').map((e) => e.trim().toLowerCase()).filter(Boolean);
  for (const email of emails) if (!EMAIL.test(email)) problems.push(`ADMIN_EMAILS: "${email}" is not an email address`);
  for (const name of ['APPROVAL_CRON', 'PAYOUT_CRON', 'STATEMENT_CRON'] as const) {
    try {
      new Cron(env[name], { paused: true }).stop();
    } catch {
      problems.push(`${name}: not a valid cron expression (got ${JSON.stringify(env[name])})`);
    }
  }
  const port = Number(env.PORT);
  if (problems.length === 0 && (port < 0 || port > 65535)) problems.push(`PORT: must be 0-65535 (got "${env.PORT}")`);
  if (Boolean(env.PAYPAL_CLIENT_ID) !== Boolean(env.PAYPAL_CLIENT_SECRET)) {
    problems.push(`${env.PAYPAL_CLIENT_ID ? 'PAYPAL_CLIENT_SECRET' : 'PAYPAL_CLIENT_ID'}: set PAYPAL_CLIENT_ID and PAYPAL_CLIENT_SECRET together`);
  }
  if (problems.length > 0) throw new ConfigError([...new Set(problems)]);
  const flag = (v: string | undefined) => v === 'true' || v === '1';
  return {
    port,
    baseUrl: env.BASE_URL.replace(/\/+$/, ''),
    databaseUrl: env.DATABASE_URL,
    dataDir: env.DATA_DIR,
    adminApiKey: env.ADMIN_API_KEY,
    adminEmails: emails,
    smtpUrl: env.SMTP_URL,
    mailFrom: env.MAIL_FROM,
    mailTimeoutMs: Math.max(1, Number(env.MAIL_TIMEOUT_MS)),
    statementCron: env.STATEMENT_CRON,
    partnerSignup: env.PARTNER_SIGNUP,
    holdbackDays: Number(env.HOLDBACK_DAYS),
    approvalCron: env.APPROVAL_CRON,
    payoutCron: env.PAYOUT_CRON,
    minPayout: env.MIN_PAYOUT,
    fraudClicksPerIpHour: Number(env.FRAUD_CLICKS_PER_IP_HOUR),
    reviewAbove: env.REVIEW_ABOVE,
    webhookTimeoutMs: Number(env.WEBHOOK_TIMEOUT_MS),
    webhookConcurrency: Math.max(1, Number(env.WEBHOOK_CONCURRENCY)),
    webhookAutoRetry: flag(env.WEBHOOK_AUTO_RETRY),
    webhookAllowHttp: flag(env.WEBHOOK_ALLOW_HTTP),
    webhookAllowPrivate: flag(env.WEBHOOK_ALLOW_PRIVATE),
    stripeWebhookSecret: env.STRIPE_WEBHOOK_SECRET,
    stripeSecretKey: env.STRIPE_SECRET_KEY,
    paddleWebhookSecret: env.PADDLE_WEBHOOK_SECRET,
    lemonSqueezyWebhookSecret: env.LEMONSQUEEZY_WEBHOOK_SECRET,
    trustProxy: Number(env.TRUST_PROXY),
    eventBatch: {
      maxSize: Math.min(1000, Math.max(1, Number(env.EVENT_BATCH_MAX))),
      maxWaitMs: Number(env.EVENT_BATCH_WAIT_MS),
      concurrency: Math.max(1, Number(env.EVENT_BATCH_CONCURRENCY)),
    },
    stripeApiUrl: env.STRIPE_API_URL,
    paypal: { clientId: env.PAYPAL_CLIENT_ID, clientSecret: env.PAYPAL_CLIENT_SECRET, apiUrl: env.PAYPAL_API_URL, webhookId: env.PAYPAL_WEBHOOK_ID },
    payoutMethodHoldHours: Number(env.PAYOUT_METHOD_HOLD_HOURS),
    logLevel: env.LOG_LEVEL,
  };
}

function describe(schema: { pattern?: string; anyOf?: { const?: unknown }[]; minLength?: number }): string {
  if (schema.anyOf) return `must be one of ${schema.anyOf.map((s) => JSON.stringify(s.const)).join(', ')}`;
  if (schema.pattern) return `must match ${schema.pattern}`;
  if (schema.minLength) return `must not be empty`;
  return 'invalid value';
}
