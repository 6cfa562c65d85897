import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.js';

const root = mkdtempSync(path.join(tmpdir(), 'am-cli-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const cli = (args: string[], env: Record<string, string>) => runCli(args, { env });

describe('agent-memory scope', () => {
  it('prints the fields a file sets, their source, and the routed banks; never the key', async () => {
    const home = path.join(root, 'home');
    const project = path.join(root, 'work', 'shop');
    mkdirSync(path.join(home, '.pi', 'agent'), { recursive: true });
    mkdirSync(path.join(project, '.pi'), { recursive: true });
    writeFileSync(path.join(home, '.pi', 'agent', 'memory.json'), JSON.stringify({ memory: { apiKeyDirect: 'hsk_live_0123456789abcdef0123' } }));
    writeFileSync(path.join(project, '.pi', 'memory.json'), JSON.stringify({ banks: { project: { bankId: 'shop-bank' } }, recall: { maxTokens: 500 } }));
    const { code, stdout } = await cli(['scope', '--cwd', project], { HOME: home });
    expect(code).toBe(0);
    expect(stdout).toMatch(/banks\.project\.bankId = shop-bank \(project\)/);
    expect(stdout).toMatch(/memory\.apiKeyDirect = \(set\) \(user\)/);
    expect(stdout).toMatch(/recall reads {2}shop-bank \(project\)/);
    expect(stdout).toMatch(/project id {4}shop \(from basename/);
    expect(stdout).not.toContain('hsk_live_0123456789abcdef0123');
  });

  it('names the file and position of invalid JSON and exits 1', async () => {
    const home = path.join(root, 'home2');
    const project = path.join(root, 'work', 'broken');
    mkdirSync(path.join(project, '.pi'), { recursive: true });
    writeFileSync(path.join(project, '.pi', 'memory.json'), '{"enabled": tru}');
    const { code, stdout } = await cli(['scope', '--cwd', project], { HOME: home });
    expect(code).toBe(1);
    expect(stdout).toMatch(/broken\/\.pi\/memory\.json: invalid JSON at line 1:13/);
  });

  it('explains an unknown command', async () => {
    const { code, stderr } = await cli(['nope'], { HOME: root });
    expect(code).toBe(2);
    expect(stderr).toMatch(/unknown command "nope"/);
  });
});
