// `bun run test`: makes sure the browser tests have their Chromium, then runs `bun test` with the
// same arguments (its output and exit code unchanged). Installs Debian's chromium when it is missing
// and we may (root, with apt-get); otherwise stops at once with the command that fixes it.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chromiumPlan, chromiumPath } from '../test/support/chromium';

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

// 30 s per test unless the caller says otherwise: Bun 1.4 ignores bunfig.toml's [test] timeout and
// would stop every test at 5 s, which a loaded 2-core machine starting services can exceed
const args = process.argv.slice(2);
const timeout = args.some((a) => a.startsWith('--timeout')) ? [] : ['--timeout', '30000'];
const child = Bun.spawn([process.execPath, 'test', ...timeout, ...args], { stdio: ['inherit', 'inherit', 'inherit'] });
// Ctrl-C or a SIGTERM to this process reaches the test run, which stops its PostgreSQL cleanly
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child.kill(signal));
process.exit(await child.exited);
