/**
 * What an installed pi package is: its version and its `pi` CLI script, as its package.json says
 * (pi 1.x moved the script to dist/bundle). The host suites, their matrix and the chaos runner
 * all name pi by what is installed, not by a path or version written down.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';

export type PiPackage = '@mariozechner/pi-coding-agent' | '@earendil-works/pi-coding-agent';

export interface InstalledPi {
  readonly version: string;
  /** The `pi` CLI script (run with a Node of its line). */
  readonly cli: string;
}

const repo = path.resolve(import.meta.dirname, '..', '..');

export const installedPi = (pkg: PiPackage): InstalledPi => {
  const dir = path.join(repo, 'node_modules', pkg);
  const manifest = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { version: string; bin: { pi: string } };
  return { version: manifest.version, cli: path.join(dir, manifest.bin.pi) };
};
