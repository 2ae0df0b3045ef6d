// Preloaded once per `bun test` run: starts the test PostgreSQL and its template database.
import { afterAll } from 'bun:test';
import { startTestServer, type TestServer } from './postgres';

declare global {
  // eslint-disable-next-line no-var
  var __partnerdTestServer: Promise<TestServer> | undefined;
}

globalThis.__partnerdTestServer ??= startTestServer();
// wait here, not in the first test file's beforeAll, whose hook time limit a busy machine can exceed
await globalThis.__partnerdTestServer;

afterAll(async () => {
  const server = await globalThis.__partnerdTestServer;
  await server?.stop();
});
