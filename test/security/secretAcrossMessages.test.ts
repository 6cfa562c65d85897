/**
 * Attack (round 9): a secret's name in one message and its value in the next. "the staging db
 * password is" sent, then (Enter pressed early) "hunter2-Tr0ub4dor&3" as a message of its own:
 * each message was redacted alone, and a value without a shape of its own is a secret only
 * after its name, so the run kept it, while the same two lines in one message hid it. Now each
 * text of a run is cleaned after the last line of the one before it when that line may name a
 * secret, as one text would be. The real projection of a run (`buildRetainJobs`, what
 * `agent_end` queues), the real import of a pi session file, and the real redactor.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { piSessionFiles } from '../../src/adapters/sessions/piSessionFiles.js';
import { buildSessionDocuments } from '../../src/effects/import/documents.js';
import { defaultConfigTemplate, type MemoryConfig } from '../../src/config/fields.js';
import { resolveScope } from '../../src/config/scope.js';
import { redact } from '../../src/config/redact.js';
import { nodeIds } from '../../src/adapters/ids/nodeIds.js';
import { buildRetainJobs } from '../../src/effects/session/retainProjection.js';
import type { HostMessage } from '../../src/effects/session/messages.js';

const config = { ...defaultConfigTemplate(), projectBankId: 'coding', projectId: 'proj' } as MemoryConfig;
const scope = resolveScope(config, { cwd: '/work/proj', repoRoot: '/work/proj' });
const now = Date.UTC(2026, 10, 28, 14);
const session = { sessionId: 's-1', sessionFile: '/home/u/.pi/agent/sessions/x/s-1.jsonl', cwd: '/work/proj' };

const contentOf = (messages: HostMessage[]): string => {
  const built = buildRetainJobs({ messages, scope, config, session, now, digest: nodeIds.digest });
  return built.jobs[0]?.item.content ?? '';
};

const user = (text: string): HostMessage => ({ role: 'user', content: text, timestamp: now });
const assistant = (text: string): HostMessage => ({ role: 'assistant', content: [{ type: 'text', text }], timestamp: now, model: 'm', stopReason: 'stop' });

const SPLITS: readonly (readonly [string, string])[] = [
  ['the staging db password is', 'hunter2-Tr0ub4dor&3'],
  ['the staging db password is:', 'Tr0ub4dor&3horse'],
  ['AWS_SECRET_ACCESS_KEY=', 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY'],
  ['password:', 'correct-horse-77'],
];

describe('a secret named in one message and given in the next', () => {
  it.each(SPLITS)('"%s" then "%s": hidden in the run as in one message', (name, value) => {
    // The same two lines in one message: hidden (the parity this holds the run to).
    expect(redact(`${name}\n${value}`)).not.toContain(value);
    expect(contentOf([user(name), user(value)])).not.toContain(value);
    expect(contentOf([assistant(`Sure. ${name}`), user(value)])).not.toContain(value);
  });

  it('leaves a message alone when the one before names no secret, and keeps both messages', () => {
    const content = contentOf([user('the build is green'), user('hunter2-Tr0ub4dor&3 is the branch name')]);
    expect(content).toContain('hunter2-Tr0ub4dor&3 is the branch name');
    const named = contentOf([user('the staging db password is'), user('hunter2-Tr0ub4dor&3')]);
    expect(named).toContain('the staging db password is');
    expect(named).toContain('[REDACTED]');
  });
});

/** A pi session file (the format pi 0.73 writes) of user messages in a row. */
const sessionFile = (dir: string, texts: readonly string[]): string => {
  const file = path.join(dir, 'session.jsonl');
  const lines = [{ type: 'session', version: 3, id: '01a20b10-37a2-76bf-904d-cdde7c5b1634', timestamp: '2026-11-28T14:00:00.000Z', cwd: '/work/proj' }];
  let parent: string | null = null;
  texts.forEach((text, i) => {
    const id = `m${i}`;
    lines.push({ type: 'message', id, parentId: parent, timestamp: '2026-11-28T14:00:01.000Z', message: { role: 'user', content: [{ type: 'text', text }], timestamp: now } } as never);
    parent = id;
  });
  writeFileSync(file, `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
  return file;
};

describe('the same split in a session imported later', () => {
  it.each(SPLITS)('"%s" then "%s": hidden in the imported documents', async (name, value) => {
    const dir = mkdtempSync(path.join(tmpdir(), 'am-split-'));
    try {
      const read = await piSessionFiles.read(sessionFile(dir, ['deploy staging', name, value, 'thanks']), { maxBytes: 1e6 });
      if (E.isLeft(read)) throw new Error(read.left.detail);
      const built = buildSessionDocuments(read.right, { mode: 'curated', qualityProfile: 'compatible', branches: 'current-only', toolResults: 'errors-only', toolSummaryMaxChars: 500 as never });
      const content = built.documents.map((d) => d.content).join('\n');
      expect(content).toContain('deploy staging');
      expect(content).not.toContain(value);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
