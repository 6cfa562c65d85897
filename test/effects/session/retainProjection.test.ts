import { describe, expect, it } from 'vitest';
import { defaultConfigTemplate, type MemoryConfig } from '../../../src/config/fields.js';
import { resolveScope } from '../../../src/config/scope.js';
import { buildRetainJobs, projectMessage, sessionDocumentId } from '../../../src/effects/session/retainProjection.js';
import { nodeIds } from '../../../src/adapters/ids/nodeIds.js';
import { footerText, type FooterConfig } from '../../../src/effects/session/footer.js';
import type { HostMessage } from '../../../src/effects/session/messages.js';

const config = { ...defaultConfigTemplate(), projectBankId: 'coding', projectId: 'proj' } as MemoryConfig;
const scope = resolveScope(config, { cwd: '/work/proj', repoRoot: '/work/proj' });
const now = Date.UTC(2026, 10, 23, 10);
const { digest } = nodeIds;

describe('retain projection', () => {
  it('keeps user text, assistant text and tool calls; drops thinking, injected memory and successful tool output', () => {
    const messages: HostMessage[] = [
      { role: 'user', content: '<memory-recall>\nold\n</memory-recall>', timestamp: 1 },
      { role: 'user', content: [{ type: 'text', text: 'Fix the flaky test' }], timestamp: now },
      { role: 'assistant', content: [{ type: 'thinking', thinking: 'hmm' }, { type: 'text', text: 'Running it' }, { type: 'toolCall', name: 'bash', id: 't1', arguments: { command: 'npm test' } }], timestamp: now, model: 'm', stopReason: 'toolUse' },
      { role: 'toolResult', toolName: 'bash', toolCallId: 't1', isError: false, content: [{ type: 'text', text: 'all green' }], timestamp: now },
      { role: 'toolResult', toolName: 'bash', toolCallId: 't2', isError: true, content: [{ type: 'text', text: 'exit 1' }], timestamp: now },
    ];
    const projected = messages.map((m) => projectMessage(m, config, now)).filter((m) => m !== undefined);
    expect(projected).toHaveLength(3);
    expect(projected[0]).toMatchObject({ role: 'user', content: 'Fix the flaky test' });
    expect(projected[1]).toMatchObject({ role: 'assistant', content: [{ type: 'text', text: 'Running it' }, { type: 'toolCall', name: 'bash', arguments: '{"command":"npm test"}' }] });
    expect(JSON.stringify(projected)).not.toContain('hmm');
    expect(projected[2]).toMatchObject({ role: 'toolResult', isError: true, content: 'exit 1' });
    const summary = projectMessage(messages[3]!, { ...config, importToolResults: 'summary', importToolSummaryMaxChars: 3 as MemoryConfig['importToolSummaryMaxChars'] }, now);
    expect(summary).toMatchObject({ content: 'all…' });
  });

  it('redacts secrets and strips private regions (an unclosed tag hides the rest)', () => {
    const m: HostMessage = { role: 'user', content: 'token=ghp_abcdefghijklmnopqrstuvwxyz0123 ok <private>my diary</private> shown <PRIVATE>hidden to the end', timestamp: now };
    const projected = projectMessage(m, config, now) as { content: string };
    expect(projected.content).toContain('[REDACTED]');
    expect(projected.content).not.toContain('ghp_');
    expect(projected.content).not.toContain('diary');
    expect(projected.content).toContain('shown');
    expect(projected.content).not.toContain('hidden');
  });

  it('builds one append job per session document with reserved provenance and scope tags', () => {
    const session = { sessionId: 's-1', sessionFile: '/home/u/.pi/agent/sessions/x/s-1.jsonl', cwd: '/work/proj' };
    const built = buildRetainJobs({ messages: [{ role: 'user', content: 'hello', timestamp: now }], scope, config, session, now, digest });
    expect(built.jobs).toHaveLength(1);
    const job = built.jobs[0]!;
    expect(job).toMatchObject({ bankId: 'coding', updateMode: 'append', documentId: sessionDocumentId(session, digest) });
    expect(job.documentId).toMatch(/^pi-session:[0-9a-f]{16}$/);
    expect(job.item.tags).toEqual(expect.arrayContaining(['project:proj', 'session:s-1']));
    expect(job.item.metadata).toMatchObject({ cwd: '/work/proj', host_session_file: session.sessionFile, source: 'pi', retainSource: 'auto' });
    expect(sessionDocumentId(session, digest)).toBe(sessionDocumentId({ ...session }, digest));
    expect(buildRetainJobs({ messages: [{ role: 'assistant', content: [{ type: 'thinking', thinking: 'x' }] }], scope, config, session, now, digest }).jobs).toEqual([]);
  });
});

describe('footer', () => {
  const base: FooterConfig = { statusStyle: 'text', statusDetail: 'activity', statusMaxLength: 24 as FooterConfig['statusMaxLength'], statusActivity: true };
  const input = { setup: 'ready' as const, session: undefined, queue: { depth: 0, state: 'idle' }, projectId: 'proj', bankId: 'coding' };
  it('shows the most important fact within statusMaxLength', () => {
    expect(footerText(base, input)).toBe('memory: ready');
    expect(footerText(base, { ...input, setup: 'degraded' })).toBe('memory: degraded');
    expect(footerText(base, { ...input, queue: { depth: 3, state: 'paused' } })).toBe('memory: paused · q3');
    expect(footerText({ ...base, statusStyle: 'off' }, input)).toBeUndefined();
    expect(footerText({ ...base, statusStyle: 'emoji' }, { ...input, setup: 'unsupported' })).toBe('🧠 ⚠️ unsupported');
    // Whole parts as fit, never a part cut to "…": the project id does not fit, so it is left out.
    expect(footerText({ ...base, statusDetail: 'verbose' }, { ...input, projectId: 'a-very-long-project-name' })).toBe('memory: ready');
    expect(footerText({ ...base, statusDetail: 'verbose', statusMaxLength: 40 as FooterConfig['statusMaxLength'] }, { ...input, projectId: 'shop' })).toBe('memory: ready · shop · coding');
    // One character over 24 with the queue: the state alone, not "setup needed · …".
    expect(footerText(base, { ...input, setup: 'unconfigured', queue: { depth: 1, state: 'idle' } })).toBe('memory: setup needed');
    expect(footerText(base, { ...input, setup: 'unconfigured', configUnreadable: true })).toBe('memory: config error');
    const tiny = footerText({ ...base, statusMaxLength: 10 as FooterConfig['statusMaxLength'] }, { ...input, setup: 'unsupported' })!;
    expect(tiny).toBe('memory: u…');
    expect(footerText({ ...base, statusDetail: 'minimal' }, { ...input, queue: { depth: 5, state: 'idle' } })).toBe('memory: ready');
  });

  it('keeps an armed next-opt-out in view: it takes the activity\'s place, and follows any other state word', () => {
    const session = (activity: string | undefined) => ({ phase: 'idle' as const, mode: 'normal' as const, recallAllowed: true, retainAllowed: true, nextOptOut: true, activity, context: {} as never });
    expect(footerText(base, { ...input, session: session('retained 12'), queue: { depth: 3, state: 'idle' } })).toBe('memory: skip next · q3');
    expect(footerText(base, { ...input, setup: 'degraded', session: session(undefined) })).toBe('memory: degraded');
    expect(footerText({ ...base, statusMaxLength: 40 as FooterConfig['statusMaxLength'] }, { ...input, setup: 'degraded', session: session(undefined), queue: { depth: 1, state: 'idle' } })).toBe('memory: degraded · skip next · q1');
    expect(footerText({ ...base, statusDetail: 'minimal' }, { ...input, session: session('retained 2') })).toBe('memory: ready');
  });
});
