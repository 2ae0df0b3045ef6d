// Every setting of the service: one schema, its defaults, parsed once at start.
// This is the only file that reads process.env.
import { Type as T, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { Cron } from 'croner';
import { isKeyText, keyringOf } from './lib/secrets';
import { isKnownCurrency } from './lib/money';

const Bool = T.Union([T.Literal('true'), T.Literal('false'), T.Literal('1'), T.Literal('0')]);

/**
 * A whole number from `minimum` to `maximum`, read from the environment's text. The range lives in
 * the schema (`minimum`/`maximum` beside the digits' pattern): a value outside it stops the start
 * with the variable's name, never becomes another number silently.
 */
const Int = (fallback: number, minimum: number, maximum: number) =>
  T.String({ default: String(fallback), pattern: `^[0-9]{1,${String(maximum).length}}$`, minimum, maximum });

const EnvSchema = T.Object({
  /** HTTP port the service listens on. */
  PORT: Int(3000, 0, 65535),
  /** Public address of the service; used in magic links and share links. */
  BASE_URL: T.String({ default: 'http://localhost:3000', pattern: '^https?://[^\\s/]+(/[^\\s]*)?$' }),
  /** PostgreSQL connection string; unset starts the embedded PostgreSQL in DATA_DIR. */
  DATABASE_URL: T.Optional(T.String({ pattern: '^postgres(ql)?://' })),
  /** A streaming replica (standby) of DATABASE_URL's database for dashboard, report and export reads; unset: every read goes to DATABASE_URL. */
  DATABASE_REPLICA_URL: T.Optional(T.String({ pattern: '^postgres(ql)?://' })),
  /** Replay lag (seconds) beyond which those reads go back to DATABASE_URL until the replica catches up. */
  DATABASE_REPLICA_MAX_LAG_SECONDS: Int(30, 1, 86400),
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
  MAIL_TIMEOUT_MS: Int(30000, 1, 3_600_000),
  /** When partners' monthly statements are written (cron expression, UTC; once per partner per month). */
  STATEMENT_CRON: T.String({ default: '0 8 1 * *' }),
  /** `open` lets partners sign themselves up; `review` takes applications an admin approves; `closed` (default) neither. */
  PARTNER_SIGNUP: T.Union([T.Literal('open'), T.Literal('closed'), T.Literal('review')], { default: 'closed' }),
  /** Days a commission is held before automatic approval, when its campaign says nothing. */
  HOLDBACK_DAYS: Int(30, 0, 3650),
  /** Days clicks are kept; older months' partitions are dropped whole (rollups, attributions and commissions stay). Unset: keep. */
  CLICK_RETENTION_DAYS: T.Optional(T.String({ pattern: '^[0-9]{1,5}$', minimum: 1, maximum: 36500 })),
  /** When the holdback approval job runs (cron expression, UTC). */
  APPROVAL_CRON: T.String({ default: '0 * * * *' }),
  /** When the payout run happens (cron expression, UTC). */
  PAYOUT_CRON: T.String({ default: '0 6 1 * *' }),
  /** Smallest payout in major units, per currency; smaller sums wait for the next run. */
  MIN_PAYOUT: T.String({ default: '0', pattern: '^[0-9]{1,12}(\\.[0-9]{1,3})?$' }),
  /** Clicks from one network (IPv4 address, IPv6 /64) on one link in one clock hour that may earn; the rest are kept as click_flood. 0: no limit. */
  FRAUD_CLICKS_PER_IP_HOUR: Int(20, 0, 1_000_000),
  /** Commissions above this amount (major units of their currency) are held for review (flag review_amount); unset: off. */
  REVIEW_ABOVE: T.Optional(T.String({ pattern: '^[0-9]{1,12}(\\.[0-9]{1,3})?$' })),
  /** Time limit of one webhook delivery, in milliseconds. */
  WEBHOOK_TIMEOUT_MS: Int(10000, 1, 600_000),
  /** Webhook deliveries one process sends at once. */
  WEBHOOK_CONCURRENCY: Int(32, 1, 1000),
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
  EVENT_BATCH_MAX: Int(200, 1, 1000),
  /** Group commit: how long the first event of a batch waits for others, in milliseconds. */
  EVENT_BATCH_WAIT_MS: Int(2, 0, 1000),
  /** Group commit: batch transactions one process runs at once (lanes; a user's events always take the same one). */
  EVENT_BATCH_CONCURRENCY: Int(4, 1, 100),
  /** Reverse proxies in front of the service whose X-Forwarded-For entries are trusted (0: use the socket address). */
  TRUST_PROXY: Int(0, 0, 20),
  /** Stripe API address; unset is Stripe's own. For stripe-mock or a test double. */
  STRIPE_API_URL: T.Optional(T.String({ pattern: '^https?://[^\\s/]+/?$' })),
  /** S3-compatible storage for resource files (`https://KEY:SECRET@host[:port]/bucket[/prefix][?region=…]`); unset: files are kept in PostgreSQL. */
  S3_URL: T.Optional(T.String({ pattern: '^https?://[^\\s/]+/[^\\s/?]+' })),
  /** Comma-separated origins (`https://app.example.com`, `https://*.example.com`) whose pages may frame /embed; unset: none may. */
  EMBED_ORIGINS: T.String({ default: '' }),
  /** PayPal REST app client id; with PAYPAL_CLIENT_SECRET, PayPal payouts go out through PayPal's API (else by upload file). */
  PAYPAL_CLIENT_ID: T.Optional(T.String({ minLength: 1 })),
  /** PayPal REST app secret. */
  PAYPAL_CLIENT_SECRET: T.Optional(T.String({ minLength: 1 })),
  /** PayPal API address (https://api-m.sandbox.paypal.com for the sandbox, a local stand-in in tests). */
  PAYPAL_API_URL: T.String({ default: 'https://api-m.paypal.com', pattern: '^https?://[^\\s/]+/?$' }),
  /** The id of the PayPal webhook that sends payout item events to POST /webhooks/paypal; mounts that route when set. */
  PAYPAL_WEBHOOK_ID: T.Optional(T.String({ minLength: 1 })),
  /** Hours a partner's payouts wait after their payout method changes (a stolen session must not redirect money silently). */
  PAYOUT_METHOD_HOLD_HOURS: Int(24, 0, 8760),
  /** Key that encrypts tax ids and dates of birth at rest (AES-256-GCM): base64 of 32 random bytes. Needed for the taxForms setting. */
  ENCRYPTION_KEY: T.Optional(T.String()),
  /** Earlier ENCRYPTION_KEYs, comma-separated: they still decrypt what they encrypted (rotation, docs/tax.md). */
  ENCRYPTION_KEY_PREVIOUS: T.String({ default: '' }),
  /** First part of self-billing invoice numbers (`PD-2026-000001`): letters, digits and dashes. */
  INVOICE_PREFIX: T.String({ default: 'PD', pattern: '^[A-Za-z0-9][A-Za-z0-9-]{0,19}$' }),
  /** The largest upload of POST /v1/imports (all the export's files together), in MiB; larger is a 413. */
  IMPORT_MAX_MB: Int(100, 1, 2048),
  /** Comma-separated referral parameters the browser client reads on the landing page (old platforms' links: Rewardful, FirstPromoter, Tolt, PartnerStack). */
  LEGACY_REF_PARAMS: T.String({ default: 'via,fpr,ref,ps_partner_key', pattern: '^[A-Za-z0-9_.,\\s-]*$' }),
  /** ISO 4217 code report totals are also shown in, converted at each day's rate (fx_rates); unset: per-currency totals only. Money owed and paid never converts. */
  REPORTING_CURRENCY: T.Optional(T.String({ pattern: '^[A-Z]{3}$' })),
  /** Where the daily exchange rates are fetched from, in the ECB's daily XML format (e.g. the ECB's eurofxref-daily.xml); unset: rates only from PUT /v1/fx-rates. */
  FX_RATES_URL: T.Optional(T.String({ pattern: '^https?://[^\\s]+$' })),
  /** When FX_RATES_URL is fetched (cron expression, UTC; the ECB publishes around 16:00 CET on working days). */
  FX_RATES_CRON: T.String({ default: '0 16 * * *' }),
  /** Single sign-on for the admin (OpenID Connect): the provider's issuer URL; on with the client id and secret. */
  OIDC_ISSUER: T.Optional(T.String({ pattern: '^https?://[^\\s]+$' })),
  OIDC_CLIENT_ID: T.Optional(T.String({ minLength: 1 })),
  OIDC_CLIENT_SECRET: T.Optional(T.String({ minLength: 1 })),
  /** Comma-separated email domains whose verified addresses may join by SSO (others must be team members already). */
  OIDC_ALLOWED_DOMAINS: T.String({ default: '' }),
  /** The role of someone joining by SSO. */
  OIDC_DEFAULT_ROLE: T.Union([T.Literal('owner'), T.Literal('admin'), T.Literal('finance'), T.Literal('support'), T.Literal('viewer')], { default: 'viewer' }),
  /** Log verbosity. */
  LOG_LEVEL: T.Union(
    [T.Literal('debug'), T.Literal('info'), T.Literal('warn'), T.Literal('error'), T.Literal('silent')],
    { default: 'info' },
  ),
});

type Env = Static<typeof EnvSchema>;

/** The settings as the service reads them: derived from the schema through toConfig(). */
export type Config = ReturnType<typeof toConfig>;

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
/** An origin a Content-Security-Policy source list takes: scheme, host (a leading `*.` allowed), port. */
const ORIGIN = /^https?:\/\/(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*(:[0-9]{1,5})?$/;

/** Settings whose values may hold secrets: a bad one is named, never echoed. */
const SECRETS = new Set(['ADMIN_API_KEY', 'DATABASE_URL', 'DATABASE_REPLICA_URL', 'S3_URL', 'SMTP_URL', 'STRIPE_WEBHOOK_SECRET', 'STRIPE_SECRET_KEY', 'PADDLE_WEBHOOK_SECRET', 'LEMONSQUEEZY_WEBHOOK_SECRET', 'PAYPAL_CLIENT_SECRET', 'ENCRYPTION_KEY', 'ENCRYPTION_KEY_PREVIOUS', 'OIDC_CLIENT_SECRET']);

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
  for (const origin of embedOriginsOf(env.EMBED_ORIGINS)) if (!ORIGIN.test(origin)) problems.push(`EMBED_ORIGINS: "${origin}" is not an origin like https://app.example.com`);
  if (env.DATABASE_REPLICA_URL !== undefined && !problems.some((p) => p.startsWith('DATABASE_REPLICA_URL:')) && !isPostgresUrl(env.DATABASE_REPLICA_URL)) {
    problems.push('DATABASE_REPLICA_URL: must be a postgres:// URL with a host (value not shown)');
  }
  if (env.DATABASE_REPLICA_URL !== undefined && env.DATABASE_URL === undefined) problems.push('DATABASE_REPLICA_URL: needs DATABASE_URL (the embedded PostgreSQL has no replica)');
  if (env.REPORTING_CURRENCY && !isKnownCurrency(env.REPORTING_CURRENCY)) problems.push(`REPORTING_CURRENCY: unknown currency code (got "${env.REPORTING_CURRENCY}")`);
  for (const name of ['APPROVAL_CRON', 'PAYOUT_CRON', 'STATEMENT_CRON', 'FX_RATES_CRON'] as const) {
    try {
      new Cron(env[name], { paused: true }).stop();
    } catch {
      problems.push(`${name}: not a valid cron expression (got ${JSON.stringify(env[name])})`);
    }
  }
  for (const [name, schema] of Object.entries(EnvSchema.properties) as [keyof Env, { minimum?: number; maximum?: number }][]) {
    if (schema.minimum === undefined || schema.maximum === undefined || problems.some((p) => p.startsWith(`${name}:`))) continue;
    const value = Number(env[name]);
    if (value < schema.minimum || value > schema.maximum) problems.push(`${name}: must be from ${schema.minimum} to ${schema.maximum} (got "${env[name]}")`);
  }
  if (Boolean(env.PAYPAL_CLIENT_ID) !== Boolean(env.PAYPAL_CLIENT_SECRET)) {
    problems.push(`${env.PAYPAL_CLIENT_ID ? 'PAYPAL_CLIENT_SECRET' : 'PAYPAL_CLIENT_ID'}: set PAYPAL_CLIENT_ID and PAYPAL_CLIENT_SECRET together`);
  }
  if (env.ENCRYPTION_KEY !== undefined && !isKeyText(env.ENCRYPTION_KEY)) problems.push('ENCRYPTION_KEY: must be the base64 of 32 bytes (openssl rand -base64 32) (value not shown)');
  if (previousKeysOf(env.ENCRYPTION_KEY_PREVIOUS).some((k) => !isKeyText(k))) problems.push('ENCRYPTION_KEY_PREVIOUS: each comma-separated key must be the base64 of 32 bytes (value not shown)');
  const oidc = [env.OIDC_ISSUER, env.OIDC_CLIENT_ID, env.OIDC_CLIENT_SECRET];
  if (oidc.some(Boolean) && !oidc.every(Boolean)) problems.push('OIDC_ISSUER: set OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET together');
  // owners come only from ADMIN_EMAILS: single sign-on never makes one
  if (env.OIDC_DEFAULT_ROLE === 'owner') problems.push('OIDC_DEFAULT_ROLE: cannot be "owner": owners come only from ADMIN_EMAILS; use admin, finance, support or viewer');
  if (problems.length > 0) throw new ConfigError([...new Set(problems)]);
  return toConfig(env, emails);
}

/** A URL postgres.js can open: it parses, and names a host. */
function isPostgresUrl(value: string): boolean {
  try {
    return new URL(value).hostname !== '';
  } catch {
    return false;
  }
}

const previousKeysOf = (value: string) => value.split(',').map((k) => k.trim()).filter(Boolean);

/** EMBED_ORIGINS as a list: trimmed, lower case, without a trailing slash. */
const embedOriginsOf = (value: string) => value.split(',').map((o) => o.trim().toLowerCase().replace(/\/+$/, '')).filter(Boolean);

/** The checked environment as settings: numbers as numbers, names in camelCase. */
function toConfig(env: Env, adminEmails: string[]) {
  const flag = (v: string | undefined) => v === 'true' || v === '1';
  return {
    port: Number(env.PORT),
    baseUrl: env.BASE_URL.replace(/\/+$/, ''),
    databaseUrl: env.DATABASE_URL,
    databaseReplicaUrl: env.DATABASE_REPLICA_URL,
    databaseReplicaMaxLagSeconds: Number(env.DATABASE_REPLICA_MAX_LAG_SECONDS),
    dataDir: env.DATA_DIR,
    adminApiKey: env.ADMIN_API_KEY,
    adminEmails,
    smtpUrl: env.SMTP_URL,
    mailFrom: env.MAIL_FROM,
    mailTimeoutMs: Number(env.MAIL_TIMEOUT_MS),
    statementCron: env.STATEMENT_CRON,
    partnerSignup: env.PARTNER_SIGNUP,
    holdbackDays: Number(env.HOLDBACK_DAYS),
    approvalCron: env.APPROVAL_CRON,
    payoutCron: env.PAYOUT_CRON,
    minPayout: env.MIN_PAYOUT,
    fraudClicksPerIpHour: Number(env.FRAUD_CLICKS_PER_IP_HOUR),
    reviewAbove: env.REVIEW_ABOVE,
    clickRetentionDays: env.CLICK_RETENTION_DAYS === undefined ? null : Number(env.CLICK_RETENTION_DAYS),
    webhookTimeoutMs: Number(env.WEBHOOK_TIMEOUT_MS),
    webhookConcurrency: Number(env.WEBHOOK_CONCURRENCY),
    webhookAutoRetry: flag(env.WEBHOOK_AUTO_RETRY),
    webhookAllowHttp: flag(env.WEBHOOK_ALLOW_HTTP),
    webhookAllowPrivate: flag(env.WEBHOOK_ALLOW_PRIVATE),
    stripeWebhookSecret: env.STRIPE_WEBHOOK_SECRET,
    stripeSecretKey: env.STRIPE_SECRET_KEY,
    paddleWebhookSecret: env.PADDLE_WEBHOOK_SECRET,
    lemonSqueezyWebhookSecret: env.LEMONSQUEEZY_WEBHOOK_SECRET,
    trustProxy: Number(env.TRUST_PROXY),
    eventBatch: {
      maxSize: Number(env.EVENT_BATCH_MAX),
      maxWaitMs: Number(env.EVENT_BATCH_WAIT_MS),
      concurrency: Number(env.EVENT_BATCH_CONCURRENCY),
    },
    stripeApiUrl: env.STRIPE_API_URL,
    s3Url: env.S3_URL,
    embedOrigins: embedOriginsOf(env.EMBED_ORIGINS),
    paypal: { clientId: env.PAYPAL_CLIENT_ID, clientSecret: env.PAYPAL_CLIENT_SECRET, apiUrl: env.PAYPAL_API_URL, webhookId: env.PAYPAL_WEBHOOK_ID },
    payoutMethodHoldHours: Number(env.PAYOUT_METHOD_HOLD_HOURS),
    /** The keys that seal and open tax ids; null: ENCRYPTION_KEY is unset and tax forms cannot be collected. */
    encryption: env.ENCRYPTION_KEY ? keyringOf(env.ENCRYPTION_KEY, previousKeysOf(env.ENCRYPTION_KEY_PREVIOUS)) : null,
    invoicePrefix: env.INVOICE_PREFIX,
    importMaxBytes: Number(env.IMPORT_MAX_MB) * 1024 * 1024,
    legacyRefParams: env.LEGACY_REF_PARAMS.split(',').map((p) => p.trim()).filter(Boolean),
    reportingCurrency: env.REPORTING_CURRENCY ?? null,
    fxRatesUrl: env.FX_RATES_URL,
    fxRatesCron: env.FX_RATES_CRON,
    oidc:
      env.OIDC_ISSUER && env.OIDC_CLIENT_ID && env.OIDC_CLIENT_SECRET
        ? {
            issuer: env.OIDC_ISSUER,
            clientId: env.OIDC_CLIENT_ID,
            clientSecret: env.OIDC_CLIENT_SECRET,
            allowedDomains: env.OIDC_ALLOWED_DOMAINS.split(',').map((d) => d.trim().toLowerCase().replace(/^@/, '')).filter(Boolean),
            defaultRole: env.OIDC_DEFAULT_ROLE,
          }
        : null,
    logLevel: env.LOG_LEVEL,
  };
}

function describe(schema: { pattern?: string; anyOf?: { const?: unknown }[]; minLength?: number; minimum?: number; maximum?: number }): string {
  if (schema.anyOf) return `must be one of ${schema.anyOf.map((s) => JSON.stringify(s.const)).join(', ')}`;
  if (schema.minimum !== undefined && schema.maximum !== undefined) return `must be a whole number from ${schema.minimum} to ${schema.maximum}`;
  if (schema.pattern) return `must match ${schema.pattern}`;
  if (schema.minLength) return `must not be empty`;
  return 'invalid value';
}
