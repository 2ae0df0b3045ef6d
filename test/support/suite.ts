// How `bun run test` (scripts/test.ts) splits the whole suite between its `bun test` processes:
// every file `bun test` would find on its own, in groups of about equal work.
import { statSync } from 'node:fs';

/** Every *.test/_test/.spec/_spec source under `root` outside node_modules, as `bun test` finds them. */
export function testFiles(root: string): string[] {
  const glob = new Bun.Glob('**/*{.test,_test,.spec,_spec}.{ts,tsx,js,jsx,mts,cts,mjs,cjs}');
  return [...glob.scanSync({ cwd: root, onlyFiles: true })].filter((path) => !path.split('/').includes('node_modules')).sort();
}

/**
 * `files` dealt to at most `count` groups of about equal work, heaviest first to the lightest group.
 * `size` guesses a file's work; a browser test's counts double (pages to render besides its requests).
 */
export function split(files: string[], count: number, size: (path: string) => number): string[][] {
  const work = (path: string) => size(path) * (path.startsWith('test/web/') ? 2 : 1);
  const groups = Array.from({ length: count }, () => ({ files: [] as string[], work: 0 }));
  for (const { path, weight } of files.map((path) => ({ path, weight: work(path) })).sort((a, b) => b.weight - a.weight)) {
    const lightest = groups.reduce((a, b) => (b.work < a.work ? b : a));
    lightest.files.push(path);
    lightest.work += weight;
  }
  return groups.map((g) => g.files).filter((g) => g.length > 0);
}

export const fileSize = (path: string): number => statSync(path).size;
