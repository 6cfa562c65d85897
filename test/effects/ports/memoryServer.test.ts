/** The real client against the embedded server, and the in-memory twin, keep the same contract. */
import { afterAll, beforeAll } from 'vitest';
import { createMemoryServer } from '../../../src/adapters/server/client.js';
import { createMemoryTwin } from '../../../src/adapters/server/memoryTwin.js';
import { startTestServer, type TestServer } from '../../helpers/embeddedServer.js';
import { describeMemoryServerConformance } from './conformance/memoryServer.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ persist: false });
});
afterAll(async () => {
  await server.dispose();
});

describeMemoryServerConformance('HTTP client + embedded server', async () => createMemoryServer({ baseUrl: server.url, timeoutMs: 5_000 }));
describeMemoryServerConformance('memory twin', async () => createMemoryTwin());
