/**
 * The pi host a suite runs against. The main run (Node 20) uses pi 0.73.1; the matrix test
 * (`hostMatrix.test.ts`) runs the same suites again on Node 22 with AM_PI_HOST=0.87.1, the
 * `@earendil-works` line. Suites import pi only through here.
 */
import * as path from 'node:path';
import type { Faux, PiSdkLine } from '../../../src/hosts/demo/piHost.js';
import type * as PiAi073 from '@mariozechner/pi-ai';

export interface HostLine {
  readonly version: '0.73.1' | '0.87.1';
  readonly sdk: PiSdkLine;
  /** The `pi` CLI script of this line (run with `process.execPath`). */
  readonly cli: string;
}

const repo = path.resolve(__dirname, '../../..');

const LINES: Record<HostLine['version'], HostLine> = {
  '0.73.1': {
    version: '0.73.1',
    sdk: { codingAgent: '@mariozechner/pi-coding-agent', ai: '@mariozechner/pi-ai' },
    cli: path.join(repo, 'node_modules/@mariozechner/pi-coding-agent/dist/cli.js'),
  },
  '0.87.1': {
    version: '0.87.1',
    sdk: { codingAgent: '@earendil-works/pi-coding-agent', ai: '@earendil-works/pi-ai' },
    cli: path.join(repo, 'node_modules/@earendil-works/pi-coding-agent/dist/cli.js'),
  },
};

const chosen = process.env['AM_PI_HOST'] ?? '0.73.1';
if (chosen !== '0.73.1' && chosen !== '0.87.1') throw new Error(`AM_PI_HOST must be 0.73.1 or 0.87.1, got ${chosen}`);
export const hostLine: HostLine = LINES[chosen];

/** The message builders both pi-ai lines export under the same names. */
type Builders = Pick<typeof PiAi073, 'fauxAssistantMessage' | 'fauxToolCall' | 'fauxText'>;
export const piAi = (await import(hostLine.sdk.ai)) as Builders;

export interface ScriptedModel extends Faux {
  /** Removes a 0.73 global registration; nothing to do on 0.87 (the provider lives in one session's runtime). */
  dispose(): void;
}

/** A scripted model for this host line. */
export const makeFaux = async (): Promise<ScriptedModel> => {
  const ai = (await import(hostLine.sdk.ai)) as Record<string, unknown>;
  if (typeof ai['fauxProvider'] === 'function') {
    const handle = (ai['fauxProvider'] as (o: object) => Faux)({ provider: 'faux' });
    return Object.assign(handle, { dispose: () => undefined });
  }
  const registration = (ai['registerFauxProvider'] as typeof PiAi073.registerFauxProvider)();
  return Object.assign(registration, { dispose: () => registration.unregister() });
};
