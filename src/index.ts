// Entry point: config -> database -> migrations -> admin key -> HTTP server; clean stop on signals.
import { ConfigError, loadConfig, type Config } from './config';
import { openDatabase } from './db';
import { migrate } from './db/migrate';
import { firstRunWarnings } from './lib/first-run';
import { createLogger } from './lib/log';
import { bootstrapAdminKey } from './modules/auth/keys';
import { nobodyCanSignIn } from './modules/team/service';
import { startScheduler } from './scheduler';
import { createContext, serve } from './server';

let config: Config;
try {
  config = loadConfig();
} catch (error) {
  if (error instanceof ConfigError) {
    console.error(`partnerd: ${error.message}`);
    process.exit(2);
  }
  throw error;
}

const log = createLogger(config.logLevel);
const db = await openDatabase(config, log).catch(async (error) => {
  log.error('cannot open the database', { error: String(error?.message ?? error) });
  process.exit(1);
});

try {
  const applied = await migrate(db.sql);
  if (applied.length > 0) log.info('migrations applied', { versions: applied });
  if (config.adminApiKey && config.adminApiKey.length < 32) log.warn('ADMIN_API_KEY is shorter than 32 characters; use a long random key');
  const generated = await bootstrapAdminKey(db.sql, config.adminApiKey);
  if (generated) {
    // printed once: only its hash is kept
    log.warn('generated an admin API key; store it now, it is not shown again', { adminApiKey: generated });
  }
} catch (error) {
  log.error('startup failed', { error });
  await db.close();
  process.exit(1);
}

const ctx = createContext(config, db.sql, log);
// asked before listening, so the warnings follow the "listening" line in the same turn
const nobody = await nobodyCanSignIn(db.sql, config, ctx.oidc?.settings.allowedDomains ?? []).catch(() => false);
const server = serve(ctx);
const scheduler = startScheduler(ctx);
log.info('partnerd listening', { url: server.url, baseUrl: config.baseUrl, database: config.databaseUrl ? 'DATABASE_URL' : 'embedded' });
// a first run says what still stands between the operator and a working sign-in
for (const warning of firstRunWarnings(config, { nobodyCanSignIn: nobody })) log.warn(warning);

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  log.info('stopping', { signal });
  // no new requests, no new job runs; in-flight requests, deliveries and a job's batch finish
  // (the webhook dispatcher and the click buffer stop inside server.stop())
  await Promise.all([server.stop(), scheduler.stop()]);
  ctx.mailer.close();
  await db.close();
  log.info('stopped');
  process.exit(0);
}
// (the embedded PostgreSQL's own exit hooks are removed when it starts: src/db/embedded.ts)
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
