/**
 * The doctor prints the Node versions it supports: that must be what npm enforces from
 * package.json's `engines`, or a person on Node 20.5 reads "node >=20" and meets an engine error.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SUPPORT_POLICY } from '../../src/tools/commands/packageInfo.js';

describe('the support policy the doctor prints', () => {
  it("names package.json's engines.node", () => {
    const pkg: unknown = JSON.parse(readFileSync(path.resolve(import.meta.dirname, '../../package.json'), 'utf8'));
    const engines = typeof pkg === 'object' && pkg !== null && 'engines' in pkg ? pkg.engines : undefined;
    const node = typeof engines === 'object' && engines !== null && 'node' in engines ? engines.node : undefined;
    expect(SUPPORT_POLICY.node).toBe(node);
  });
});
