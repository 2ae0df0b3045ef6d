// `bun run test` (scripts/test.ts) on a machine without Chromium: it installs Debian's when it may,
// or stops at once with the command that fixes it; with Chromium it is `bun test`, output and all.
// Without arguments it splits the suite between processes: every file runs, exactly once.
import { describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { chromiumPlan, DEBIAN_CHROMIUM, INSTALL_COMMAND, type ChromiumPlan } from './support/chromium';
import { fileSize, split, testFiles } from './support/suite';

const ROOT = join(import.meta.dir, '..');
const none = () => false;

describe('what the test command does about Chromium', () => {
  const cases: { label: string; env: Record<string, string>; exists: (p: string) => boolean; root: boolean; apt: boolean; kind: ChromiumPlan['kind']; says?: string[] }[] = [
    { label: "Debian's is there", env: {}, exists: (p) => p === DEBIAN_CHROMIUM, root: false, apt: true, kind: 'ready' },
    { label: 'CHROMIUM_PATH is there', env: { CHROMIUM_PATH: '/opt/chrome' }, exists: (p) => p === '/opt/chrome', root: false, apt: false, kind: 'ready' },
    { label: 'missing, root with apt-get: installs', env: {}, exists: none, root: true, apt: true, kind: 'install' },
    {
      label: 'missing, not root: the sudo command',
      env: {},
      exists: none,
      root: false,
      apt: true,
      kind: 'missing',
      says: [`none at ${DEBIAN_CHROMIUM}`, 'sudo apt-get update && sudo apt-get install -y chromium'],
    },
    { label: 'missing, no apt-get: CHROMIUM_PATH', env: {}, exists: none, root: true, apt: false, kind: 'missing', says: ['set CHROMIUM_PATH'] },
    {
      label: 'CHROMIUM_PATH names nothing: never installs, says so',
      env: { CHROMIUM_PATH: '/nowhere/chromium' },
      exists: none,
      root: true,
      apt: true,
      kind: 'missing',
      says: ['none at /nowhere/chromium (CHROMIUM_PATH)', 'apt-get update && apt-get install -y chromium'],
    },
  ];
  for (const c of cases) {
    test(c.label, () => {
      const plan = chromiumPlan(c);
      expect(plan.kind).toBe(c.kind);
      if (plan.kind === 'install') expect(plan.command).toBe(INSTALL_COMMAND);
      for (const text of c.says ?? []) expect(plan.kind === 'missing' ? plan.message : '').toContain(text);
    });
  }
});

async function runTestCommand(args: string[], env: Record<string, string>) {
  const proc = Bun.spawn(['bun', 'run', 'test', ...args], { cwd: ROOT, env: { ...process.env, ...env }, stdout: 'pipe', stderr: 'pipe' });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { stdout, stderr, code };
}

describe('bun run test', () => {
  test('without Chromium it stops at once with the fix, running no test', async () => {
    const run = await runTestCommand([], { CHROMIUM_PATH: '/nonexistent/chromium' });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('The browser tests need Chromium, and there is none at /nonexistent/chromium');
    expect(run.stderr).toContain('apt-get install -y chromium');
    // nothing was started: no test file ran, so no report
    expect(run.stdout + run.stderr).not.toMatch(/^ *\d+ (pass|fail)$/m);
  });

  test('with Chromium it is `bun test`: the arguments, the pass/fail lines and the exit code', async () => {
    const server = await globalThis.__partnerdTestServer!;
    const run = await runTestCommand(['test/web/older-link.test.tsx'], { DATABASE_URL: server.adminUrl });
    expect(run.stderr).toMatch(/^ *2 pass$/m);
    expect(run.stderr).toMatch(/^ *0 fail$/m);
    expect(run.code).toBe(0);
  });
});

describe('the whole suite in several processes', () => {
  const files = testFiles(ROOT);

  test('finds every test file, this one among them, none under node_modules', () => {
    expect(files).toContain('test/test-command.test.ts');
    expect(files).toContain('test/web/older-link.test.tsx');
    expect(files.filter((path) => path.includes('node_modules'))).toEqual([]);
    expect(files.every((path) => /(\.test|_test|\.spec|_spec)\.[cm]?[jt]sx?$/.test(path))).toBe(true);
  });

  test('every file lands in exactly one group; the groups carry about the same work', () => {
    const size = (path: string) => fileSize(join(ROOT, path));
    for (const count of [1, 2, 3]) {
      const groups = split(files, count, size);
      expect(groups).toHaveLength(count);
      expect(groups.flat().sort()).toEqual(files);
      const work = groups.map((g) => g.reduce((sum, path) => sum + size(path) * (path.startsWith('test/web/') ? 2 : 1), 0));
      // dealt heaviest first, no group exceeds another by more than the heaviest single file
      const heaviest = Math.max(...files.map((path) => size(path) * (path.startsWith('test/web/') ? 2 : 1)));
      expect(Math.max(...work) - Math.min(...work)).toBeLessThanOrEqual(heaviest);
    }
    expect(split(['a.test.ts'], 2, () => 1)).toEqual([['a.test.ts']]);
  });
});
