/**
 * The pi host a suite runs against. The main run (Node 20) uses pi 0.73.1, the
 * `@mariozechner` line; the matrix test (`hostMatrix.test.ts`) runs the same suites again on
 * Node 22 with AM_PI_HOST=earendil, the `@earendil-works` line at the version the
 * devDependencies pin. Suites import pi only through here.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Faux, PiSdkLine } from '../../../src/hosts/demo/piHost.js';
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

const repo = path.resolve(__dirname, '../../..');

interface Manifest {
  readonly version: string;
  readonly bin: { readonly pi: string };
}
const manifestOf = (pkg: string): Manifest => JSON.parse(readFileSync(path.join(repo, 'node_modules', pkg, 'package.json'), 'utf8')) as Manifest;
/** The version and `pi` CLI script of an installed pi package (pi 1.x moved the script). */
const installed = (pkg: string): Pick<HostLine, 'version' | 'cli'> => {
  const manifest = manifestOf(pkg);
  return { version: manifest.version, cli: path.join(repo, 'node_modules', pkg, manifest.bin.pi) };
};

const LINES: Record<HostLine['line'], HostLine> = {
  mariozechner: {
    line: 'mariozechner',
    ...installed('@mariozechner/pi-coding-agent'),
    sdk: { codingAgent: '@mariozechner/pi-coding-agent', ai: '@mariozechner/pi-ai' },
  },
  earendil: {
    line: 'earendil',
    ...installed('@earendil-works/pi-coding-agent'),
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
