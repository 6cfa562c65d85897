import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import * as E from 'fp-ts/lib/Either.js';
import * as fc from 'fast-check';
import { branchMessages, branchTo, leafIds, parseSessionText, readSessionFile, type SessionFile } from '../../../src/adapters/sessions/sessionFile.js';
import { HostMessage } from '../../../src/effects/session/messages.js';

const fixtures = path.resolve(__dirname, '../../../fixtures/pi/sessions');
const read = (name: string): SessionFile => {
  const result = readSessionFile(path.join(fixtures, name));
  if (E.isLeft(result)) throw new Error(result.left.message);
  return result.right;
};
const texts = (messages: unknown[]): string[] =>
  messages.filter((m): m is HostMessage => HostMessage.is(m)).map((m) => (typeof m.content === 'string' ? m.content : (m.content ?? []).map((b) => b.text ?? '').join('')));

describe('pi session file reader', () => {
  it('reads a real pi 0.73.1 print-mode session', () => {
    const session = read('real-print-v3.jsonl');
    expect(session.header.version).toBe(3);
    expect(session.damaged).toEqual([]);
    const messages = branchMessages(branchTo(session));
    expect(messages.map((m) => (m as { role: string }).role)).toEqual(['user', 'assistant']);
    expect(messages.every((m) => HostMessage.is(m))).toBe(true);
  });

  it('follows the current branch to the last line, lists every leaf, and leaves a torn tail unread', () => {
    const session = read('branched-v3.jsonl');
    expect(session.pendingTailBytes).toBeGreaterThan(0);
    expect(session.damaged).toEqual([]);
    expect(texts(branchMessages(branchTo(session)))).toEqual(['Question A', 'A done', 'Question C', 'Answer C']);
    expect(leafIds(session).sort()).toEqual(['33cc44dd', 'a96a2335']);
    expect(texts(branchMessages(branchTo(session, 'a96a2335')))).toEqual(['Question A', 'A done', 'Question B', 'Answer B']);
  });

  it('reads v1 files as a linear list and reports a malformed line by number', () => {
    const session = read('linear-v1.jsonl');
    expect(texts(branchMessages(branchTo(session)))).toEqual(['legacy question', 'legacy answer']);
    expect(session.damaged).toHaveLength(1);
    expect(session.damaged[0]!.line).toBe(3);
  });

  it('refuses a file that is not a session, and a missing file, with a message', () => {
    const notSession = parseSessionText('x.jsonl', '{"type":"message"}\n');
    expect(E.isLeft(notSession) && notSession.left._tag === 'notASession').toBe(true);
    const missing = readSessionFile(path.join(fixtures, 'nope.jsonl'));
    expect(E.isLeft(missing) && missing.left.message.includes('ENOENT')).toBe(true);
  });

  it('never throws on arbitrary appended lines (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.string(), { maxLength: 8 }), (lines) => {
        const text = `${JSON.stringify({ type: 'session', version: 3, id: 's' })}\n${lines.join('\n')}`;
        const result = parseSessionText('p.jsonl', text);
        expect(E.isRight(result)).toBe(true);
        if (E.isRight(result)) expect(branchTo(result.right).length).toBeLessThanOrEqual(result.right.entries.length);
      }),
    );
  });
});
