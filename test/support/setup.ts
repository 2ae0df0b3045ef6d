// Preloaded once per `bun test` run: starts the test PostgreSQL and its template database.
import { afterAll, afterEach } from 'bun:test';
import type { Browser } from 'playwright-core';
import { takeViolations } from './contract';
import { startTestServer, type TestServer } from './postgres';

declare global {
  // eslint-disable-next-line no-var
  var __partnerdTestServer: Promise<TestServer> | undefined;
  /** The Chromium the browser tests of this run share (test/web/browser.ts), once one asked for it. */
  // eslint-disable-next-line no-var
  var __partnerdBrowser: Promise<Browser> | undefined;
}

globalThis.__partnerdTestServer ??= startTestServer();
// wait here, not in the first test file's beforeAll, whose hook time limit a busy machine can exceed
await globalThis.__partnerdTestServer;

afterAll(async () => {
  await (await globalThis.__partnerdBrowser?.catch(() => undefined))?.close();
  const server = await globalThis.__partnerdTestServer;
  await server?.stop();
});

// webhook payloads that broke their documented schema during a test fail that test
afterEach(() => {
  const problems = takeViolations();
  if (problems.length > 0) throw new Error(`outbound events broke the contract:\n${problems.join('\n')}`);
});
