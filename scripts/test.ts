// `bun run test`: makes sure the browser tests have their Chromium, then runs `bun test`. With
// arguments (a file, a folder, flags) it is `bun test` with them, output and exit code unchanged.
// Without, the whole suite: its files split between TEST_PROCESSES (default 2) `bun test` processes
// that run side by side (a test file waits on PostgreSQL and Chromium much of its time), each with
// its own template database (and embedded PostgreSQL when DATABASE_URL is unset) and Chromium, each
// printing its own report and pass/fail totals, one process's output at a time; the exit code is
// non-zero when any of them failed. Installs Debian's chromium when it is missing and we may (root, with apt-get);
// otherwise stops at once with the command that fixes it.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chromiumPlan, chromiumPath } from '../test/support/chromium';
import { fileSize, split, testFiles } from '../test/support/suite';

const plan = chromiumPlan({ env: process.env, exists: existsSync, root: process.getuid?.() === 0, apt: Bun.which('apt-get') !== null });

if (plan.kind === 'install') {
  console.log(`Chromium is missing (the browser tests need it); installing Debian's: ${plan.command}`);
  const done = spawnSync('sh', ['-c', plan.command], { stdio: 'inherit' });
  if (done.status !== 0 || !existsSync(chromiumPath())) {
    console.error(`Installing Chromium failed. Run this, then run the tests again:\n\n    ${plan.command}\n`);
    process.exit(1);
  }
} else if (plan.kind === 'missing') {
  console.error(plan.message);
  process.exit(1);
}

// the invoice tests read PDFs back with poppler's pdftotext: installed the same way when missing
if (Bun.which('pdftotext') === null) {
  const command = 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq poppler-utils';
  const mayInstall = process.getuid?.() === 0 && Bun.which('apt-get') !== null;
  if (mayInstall) console.log(`pdftotext is missing (the invoice tests need it); installing Debian's poppler-utils: ${command}`);
  if (!mayInstall || spawnSync('sh', ['-c', command], { stdio: 'inherit' }).status !== 0 || Bun.which('pdftotext') === null) {
    console.error(`The invoice tests need pdftotext. Run this, then run the tests again:\n\n    ${command}\n`);
    process.exit(1);
  }
}

// 30 s per test unless the caller says otherwise: Bun 1.4 ignores bunfig.toml's [test] timeout and
// would stop every test at 5 s, which a loaded 2-core machine starting services can exceed
const args = process.argv.slice(2);
const timeout = args.some((a) => a.startsWith('--timeout')) ? [] : ['--timeout', '30000'];
const processes = args.length === 0 ? Math.max(1, Number(process.env.TEST_PROCESSES ?? 2) || 1) : 1;

if (processes === 1) {
  const child = Bun.spawn([process.execPath, 'test', ...timeout, ...args], { stdio: ['inherit', 'inherit', 'inherit'] });
  // Ctrl-C or a SIGTERM to this process reaches the test run, which stops its PostgreSQL cleanly
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child.kill(signal));
  process.exit(await child.exited);
}

const groups = split(testFiles(process.cwd()), processes, fileSize);
// `./` makes each a path for `bun test`, not a filter on names
const children = groups.map((files) => Bun.spawn([process.execPath, 'test', ...timeout, ...files.map((path) => `./${path}`)], { stdio: ['ignore', 'pipe', 'pipe'] }));
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => children.forEach((child) => child.kill(signal)));

// One process's output at a time, so each report reads as `bun test` prints it: the first is shown
// as it comes, the next is held until the one before has ended, then caught up and shown live.
let shown = 0;
const held: { to: NodeJS.WriteStream; chunk: Uint8Array }[][] = children.map(() => []);
function print(index: number, to: NodeJS.WriteStream, chunk: Uint8Array): void {
  if (index === shown) to.write(chunk);
  else held[index]!.push({ to, chunk });
}
async function pump(index: number, from: ReadableStream<Uint8Array>, to: NodeJS.WriteStream): Promise<void> {
  const reader = from.getReader();
  for (let read = await reader.read(); !read.done; read = await reader.read()) print(index, to, read.value);
}
const ended = children.map((child, index) => Promise.all([pump(index, child.stdout, process.stdout), pump(index, child.stderr, process.stderr), child.exited]));
let status = 0;
for (const [index, child] of children.entries()) {
  shown = index;
  for (const { to, chunk } of held[index]!.splice(0)) to.write(chunk);
  await ended[index];
  if (child.exitCode !== 0) status = 1;
}
// a pipe (CI's tee) may still hold the last report's held chunks: exit only once both have drained,
// or the end of the last report (its totals) is cut off
const drained = (to: NodeJS.WriteStream) => new Promise<void>((resolve) => to.write('', () => resolve()));
await Promise.all([drained(process.stdout), drained(process.stderr)]);
process.exit(status);
