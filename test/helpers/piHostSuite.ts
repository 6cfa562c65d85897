/**
 * The set-up every in-process pi host suite shares: one embedded server (in memory) and one
 * scripted model for the whole file, and with `project` one project on that server, made
 * before the first test and cleaned up after the last. Read them inside tests and hooks.
 */
import { afterAll, beforeAll } from 'vitest';
import { makeFaux, type ScriptedModel } from '../hosts/pi/hostLine.js';
import { makeProject, type Project } from '../hosts/pi/piSdk.js';
import { startTestServer, type TestServer } from './embeddedServer.js';

export interface PiHostSuite {
  readonly server: TestServer;
  readonly faux: ScriptedModel;
  /** Only with the `project` option. */
  readonly project: Project;
}

export const usePiHost = (o: { readonly project?: Record<string, unknown> } = {}): PiHostSuite => {
  let server: TestServer | undefined;
  let faux: ScriptedModel | undefined;
  let project: Project | undefined;
  beforeAll(async () => {
    server = await startTestServer({ persist: false });
    // The faux model of whichever pi line runs (hostLine.ts).
    faux = await makeFaux();
    if (o.project !== undefined) project = await makeProject(server.url, o.project);
  });
  afterAll(async () => {
    faux?.dispose();
    await server?.dispose();
  });
  const ready = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`usePiHost: ${what} is read before beforeAll ran${what === 'project' && o.project === undefined ? ' (pass the project option)' : ''}`);
    return value;
  };
  return {
    get server() {
      return ready(server, 'server');
    },
    get faux() {
      return ready(faux, 'faux');
    },
    get project() {
      return ready(project, 'project');
    },
  };
};
