// The real service as a child process (`bun run src/index.ts`) on a given database, for tests that
// must kill it (SIGKILL) or stop it (SIGTERM) the way an operator's platform would.
import { join } from 'node:path';
import { eventually } from './eventually';
import { freePort, ADMIN_KEY } from './service';

export type ServiceProcess = {
  url: string;
  proc: ReturnType<typeof Bun.spawn>;
  output(): string;
  api(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
  /** Waits for the process to end; answers its exit code (null when killed by a signal). */
  exited(): Promise<number | null>;
};

const ROOT = join(import.meta.dir, '..', '..');

export async function spawnService(databaseUrl: string, env: Record<string, string> = {}): Promise<ServiceProcess> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const proc = Bun.spawn(['bun', 'run', 'src/index.ts'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
      HOME: process.env.HOME ?? '/tmp',
      PORT: String(port),
      BASE_URL: url,
      DATABASE_URL: databaseUrl,
      ADMIN_API_KEY: ADMIN_KEY,
      LOG_LEVEL: 'warn',
      ...env,
    },
    stdout: 'pipe',
    stderr: 'pipe',
  });
  let out = '';
  const drain = async (stream: ReadableStream<Uint8Array>) => {
    const decoder = new TextDecoder();
    const reader = stream.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      out += decoder.decode(value, { stream: true });
    }
  };
  void drain(proc.stdout as ReadableStream<Uint8Array>);
  void drain(proc.stderr as ReadableStream<Uint8Array>);

  const service: ServiceProcess = {
    url,
    proc,
    output: () => out,
    async api(method, path, body) {
      const res = await fetch(url + path, {
        method,
        headers: { authorization: `Bearer ${ADMIN_KEY}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : undefined };
    },
    async exited() {
      await proc.exited;
      return proc.signalCode ? null : proc.exitCode;
    },
  };
  try {
    await eventually(
      async () => {
        if (proc.exitCode !== null) throw new Error(`service exited during start (${proc.exitCode}):\n${out}`);
        const ready = await fetch(`${url}/readyz`).then((r) => r.status === 200, () => false);
        if (!ready) throw new Error(`service not ready:\n${out}`);
      },
      { timeout: 30_000 },
    );
  } catch (error) {
    proc.kill('SIGKILL');
    throw error;
  }
  return service;
}
