/**
 * pi's hook payloads decode where they arrive: every pi line's shape is read, pi's message
 * objects pass through as the same array, and a payload of the wrong shape is an error that
 * names the hook and the field.
 */
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { AgentEndPayload, ContextPayload, SessionInfoChangedPayload, SessionShutdownPayload, SessionStartPayload, decodeHook } from '../../../src/hosts/pi/hookPayloads.js';

describe('pi hook payloads', () => {
  it('reads the shapes pi 0.73 and the newer lines send', () => {
    const right = <A>(result: E.Either<unknown, A>): A => {
      if (E.isLeft(result)) throw new Error(`expected a decoded payload, got ${JSON.stringify(result.left)}`);
      return result.right;
    };
    expect(right(decodeHook(SessionStartPayload, 'session_start', { type: 'session_start', reason: 'resume', previousSessionFile: '/s.jsonl' })).reason).toBe('resume');
    expect(right(decodeHook(AgentEndPayload, 'agent_end', { type: 'agent_end', messages: [] })).willRetry).toBeUndefined();
    expect(right(decodeHook(AgentEndPayload, 'agent_end', { type: 'agent_end', messages: [], willRetry: true })).willRetry).toBe(true);
    expect(right(decodeHook(SessionShutdownPayload, 'session_shutdown', { type: 'session_shutdown', reason: 'new', targetSessionFile: '/n.jsonl' }))).toMatchObject({
      reason: 'new',
      targetSessionFile: '/n.jsonl',
    });
    expect(right(decodeHook(SessionInfoChangedPayload, 'session_info_changed', { type: 'session_info_changed' })).name).toBeUndefined();
    // pi's own `type` is stripped: spread into the gate's event it would replace `session.renamed`.
    expect(right(decodeHook(SessionInfoChangedPayload, 'session_info_changed', { type: 'session_info_changed', name: 'release' }))).toEqual({ name: 'release' });
  });

  it("hands on pi's own message array, every element untouched", () => {
    const messages = [{ role: 'user', content: 'hi', timestamp: 1 }, { role: 'custom', customType: 'x', details: { deep: true } }, 42];
    const decoded = decodeHook(ContextPayload, 'context', { type: 'context', messages });
    expect(E.isRight(decoded) && decoded.right.messages).toBe(messages);
  });

  it('names the hook and the field when a payload has the wrong shape', () => {
    const start = decodeHook(SessionStartPayload, 'session_start', { type: 'session_start', reason: 'reboot' });
    expect(E.isLeft(start) && start.left.message).toMatch(/^pi session_start event: field reason: expected .*"startup".*got "reboot"/);
    const end = decodeHook(AgentEndPayload, 'agent_end', { type: 'agent_end', messages: 'all of them', willRetry: 'yes' });
    expect(E.isLeft(end) && end.left.message).toContain('field messages');
    expect(E.isLeft(end) && end.left.message).toContain('field willRetry');
  });
});
