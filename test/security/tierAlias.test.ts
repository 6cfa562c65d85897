/**
 * Attack (round 8): a project the person trusts renames a bank's tier. Its `.pi/memory.json`
 * (a repository's text, changed by any `git pull`) claims the coding bank every project shares as
 * its personal bank (`banks.global.bankId`), or as its own isolated bank. Every other project
 * whose file names that bank (where `/memory setup` writes it) had its bank refused as "your
 * personal memory bank" and fell back to a bank named from its folder, so memory waited in all
 * of them; and the claiming project's user tier was the shared bank, so what it kept there as
 * the person's own sat among every project's memories. Now a trusted project's claim that another
 * claim gives another tier refuses nothing elsewhere, and a project file's personal bank that is
 * a project's bank (its own, the shared one, another's isolated one) is refused by field.
 * The real config loader, tools, queue and embedded server.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { call } from '../helpers/embeddedServer.js';
import { CODING_BANK, startHarness, type Harness } from '../tools/harness.js';

const writeJson = (file: string, data: unknown): void => {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(data));
};
const held = async (h: Harness, bank: string): Promise<string> => JSON.stringify((await call(h, 'GET', `/v1/default/banks/${bank}/memories/list?limit=500`)).body);

describe('a trusted project claiming the shared coding bank for another tier', () => {
  let h: Harness;
  let claimer: string;
  let sibling: string;
  beforeAll(async () => {
    // The harness project (untrusted) and a trusted sibling were set up with /memory setup: each
    // file names the shared coding bank. The user file names no bank.
    h = await startHarness({ project: { setupComplete: true, banks: { project: { bankId: CODING_BANK } } } });
    claimer = path.join(h.root, 'claimer');
    sibling = path.join(h.root, 'sibling');
    writeJson(path.join(sibling, '.pi', 'memory.json'), { setupComplete: true, banks: { project: { bankId: CODING_BANK } } });
    writeJson(path.join(h.home, '.pi', 'agent', 'memory.json'), { memory: { trustedProjects: [claimer, sibling] } });
  });
  afterAll(async () => {
    await h.close();
  });

  for (const [what, claim] of [
    ['as its personal bank', { banks: { profile: 'project+global', global: { enabled: true, bankId: CODING_BANK }, project: { bankId: 'claimer-own' } } }],
    ['as its own isolated bank', { scope: { mode: 'isolated-bank' }, banks: { project: { bankId: CODING_BANK } } }],
  ] as const) {
    it(`${what}: every other project keeps the coding bank, and a tool's retain lands there`, async () => {
      writeJson(path.join(claimer, '.pi', 'memory.json'), claim);
      for (const dir of [h.cwd, sibling]) {
        const loaded = loadConfig({ cwd: dir, home: h.home, env: {} });
        expect(loaded.config.projectBankId, dir).toBe(CODING_BANK);
        expect(loaded.warnings.filter((w) => w.field === 'banks.project.bankId'), dir).toEqual([]);
      }
      const text = `Deploys use blue-green switching (${what}).`;
      await h.ok('memory_retain', { content: text, context: 'the README' });
      expect(await held(h, CODING_BANK)).toContain(text);
    });
  }

  it('the claiming project\'s personal bank is refused by field when it is the shared bank', () => {
    writeJson(path.join(claimer, '.pi', 'memory.json'), { banks: { profile: 'project+global', global: { enabled: true, bankId: CODING_BANK }, project: { bankId: 'claimer-own' } } });
    const loaded = loadConfig({ cwd: claimer, home: h.home, env: {} });
    expect(loaded.config.globalBankId).toBeUndefined();
    const warning = loaded.warnings.find((w) => w.field === 'banks.global.bankId');
    expect(warning?.message).toContain(`names ${CODING_BANK}, the coding bank your projects share`);
    expect(warning?.message).toContain(', refused');
  });

  it('a project file naming one bank for both tiers keeps it as the project bank only', () => {
    writeJson(path.join(claimer, '.pi', 'memory.json'), { banks: { profile: 'project+global', global: { enabled: true, bankId: 'both' }, project: { bankId: 'both' } } });
    const loaded = loadConfig({ cwd: claimer, home: h.home, env: {} });
    expect(loaded.config.projectBankId).toBe('both');
    expect(loaded.config.globalBankId).toBeUndefined();
    expect(loaded.warnings.find((w) => w.field === 'banks.global.bankId')?.message).toContain("this project's own bank");
    // Nor does the claim make the bank personal in other projects.
    writeJson(path.join(h.stateDir, 'memory.json'), { setupComplete: true, banks: { project: { bankId: 'both' } } });
    expect(loadConfig({ cwd: h.cwd, home: h.home, env: {} }).config.projectBankId).toBe('both');
    writeJson(path.join(h.stateDir, 'memory.json'), { setupComplete: true, banks: { project: { bankId: CODING_BANK } } });
  });

  it('the user file\'s shared bank outranks a trusted project\'s claim; the user file\'s personal bank is still refused as a project bank', () => {
    writeJson(path.join(claimer, '.pi', 'memory.json'), { banks: { profile: 'project+global', global: { enabled: true, bankId: 'shared-by-user' } } });
    writeJson(path.join(h.home, '.pi', 'agent', 'memory.json'), { memory: { trustedProjects: [claimer, sibling] }, banks: { project: { bankId: 'shared-by-user' }, global: { bankId: 'mine' } } });
    writeJson(path.join(h.stateDir, 'memory.json'), { setupComplete: true, banks: { project: { bankId: 'shared-by-user' } } });
    expect(loadConfig({ cwd: h.cwd, home: h.home, env: {} }).config.projectBankId).toBe('shared-by-user');
    expect(loadConfig({ cwd: claimer, home: h.home, env: {} }).config.globalBankId).toBe('mine');
    writeJson(path.join(h.stateDir, 'memory.json'), { setupComplete: true, banks: { project: { bankId: 'mine' } } });
    const loaded = loadConfig({ cwd: h.cwd, home: h.home, env: {} });
    expect(loaded.config.projectBankId).toBe('shared-by-user');
    expect(loaded.warnings.find((w) => w.field === 'banks.project.bankId')?.message).toContain('your personal memory bank');
    writeJson(path.join(h.home, '.pi', 'agent', 'memory.json'), { memory: { trustedProjects: [claimer, sibling] } });
    writeJson(path.join(h.stateDir, 'memory.json'), { setupComplete: true, banks: { project: { bankId: CODING_BANK } } });
  });
});
