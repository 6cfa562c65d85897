/**
 * The command that starts the embedded server where the person is: the `serve.mjs` beside
 * this bundle (an installed extension), or `serve.ts` run through the repository's tsx (the
 * extension loaded from source). Absolute paths, so it works from any directory.
 */
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { shellWord as quote } from '../../config/serverStart.js';

export const embeddedServerCommand = (here: string = import.meta.url): string => {
  const dir = path.dirname(fileURLToPath(here));
  const bundled = path.join(dir, 'serve.mjs');
  if (existsSync(bundled)) return `node ${quote(bundled)}`;
  const source = path.join(dir, 'serve.ts');
  const tsx = path.resolve(dir, '../../../node_modules/tsx/dist/cli.mjs');
  if (existsSync(source) && existsSync(tsx)) return `node ${quote(tsx)} ${quote(source)}`;
  // Neither beside this file: the package installed globally puts its CLI on PATH.
  return 'agent-memory serve';
};
