// Where the browser tests (test/web) find Chromium, and what to do when it is missing. Debian's
// package is the one we use: playwright-core never downloads a browser. Shared by
// test/web/browser.ts and scripts/test.ts (the `bun run test` command).

export const DEBIAN_CHROMIUM = '/usr/bin/chromium';

/** CHROMIUM_PATH when set (another Chromium or Chrome build), else Debian's. */
export function chromiumPath(env: Record<string, string | undefined> = process.env): string {
  return env.CHROMIUM_PATH || DEBIAN_CHROMIUM;
}

export type ChromiumPlan =
  | { kind: 'ready'; path: string }
  /** Debian's chromium is missing and we may install it: root, with apt-get. */
  | { kind: 'install'; path: string; command: string }
  | { kind: 'missing'; path: string; message: string };

/** How scripts/test.ts installs Debian's chromium (as root, no questions asked). */
export const INSTALL_COMMAND = 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium';

export function chromiumPlan(input: { env: Record<string, string | undefined>; exists: (path: string) => boolean; root: boolean; apt: boolean }): ChromiumPlan {
  const path = chromiumPath(input.env);
  if (input.exists(path)) return { kind: 'ready', path };
  const chosen = !!input.env.CHROMIUM_PATH;
  if (!chosen && input.root && input.apt) return { kind: 'install', path, command: INSTALL_COMMAND };
  const sudo = input.root ? '' : 'sudo ';
  const install = input.apt ? `${sudo}apt-get update && ${sudo}apt-get install -y chromium` : undefined;
  const fix = chosen
    ? install
      ? `Point CHROMIUM_PATH at a Chromium executable, or unset it and install Debian's:\n\n    ${install}\n`
      : 'Point CHROMIUM_PATH at a Chromium or Chrome executable.'
    : install
      ? `Run this, then run the tests again:\n\n    ${install}\n\n(or set CHROMIUM_PATH to a Chromium or Chrome executable)`
      : 'Install Chromium (or Chrome) and set CHROMIUM_PATH to its executable.';
  return { kind: 'missing', path, message: `The browser tests need Chromium, and there is none at ${path}${chosen ? ' (CHROMIUM_PATH)' : ''}. ${fix}` };
}
