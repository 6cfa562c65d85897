/**
 * The pi host a suite runs against. The main run (Node 20) uses pi 0.73.1, the
 * `@mariozechner` line; the matrix test (`hostMatrix.test.ts`) runs the same suites again on
 * Node 22 with AM_PI_HOST=earendil, the `@earendil-works` line at the version the
 * devDependencies pin. Suites import pi only through here.
 */
import type { Faux, PiSdkLine } from '../../../src/hosts/demo/piHost.js';
import { installedPi } from '../../helpers/installedPi.js';
import type * as PiAi073 from '@mariozechner/pi-ai';

export interface HostLine {
  /** `mariozechner`: pi 0.73; `earendil`: pi 0.74 and later. */
  readonly line: 'mariozechner' | 'earendil';
  /** The installed version, as its package.json says. */
  readonly version: string;
  readonly sdk: PiSdkLine;
  /** The `pi` CLI script of this line (run with `process.execPath`). */
  readonly cli: string;
}

const LINES: Record<HostLine['line'], HostLine> = {
  mariozechner: {
    line: 'mariozechner',
    ...installedPi('@mariozechner/pi-coding-agent'),
    sdk: { codingAgent: '@mariozechner/pi-coding-agent', ai: '@mariozechner/pi-ai' },
  },
  earendil: {
    line: 'earendil',
    ...installedPi('@earendil-works/pi-coding-agent'),
    sdk: { codingAgent: '@earendil-works/pi-coding-agent', ai: '@earendil-works/pi-ai' },
  },
};

const chosen = process.env['AM_PI_HOST'] ?? 'mariozechner';
if (chosen !== 'mariozechner' && chosen !== 'earendil') throw new Error(`AM_PI_HOST must be mariozechner or earendil, got ${chosen}`);
export const hostLine: HostLine = LINES[chosen];

/** The message builders both pi-ai lines export under the same names. */
type Builders = Pick<typeof PiAi073, 'fauxAssistantMessage' | 'fauxToolCall' | 'fauxText'>;
export const piAi = (await import(hostLine.sdk.ai)) as Builders;

export interface ScriptedModel extends Faux {
  /** Removes a 0.73 global registration; nothing to do on 0.87 and later (the provider lives in one session's runtime). */
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
