import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { renderRecallBlock } from '../../../src/effects/session/recallBlock.js';
import { conversationText } from '../../../src/effects/session/recallConversation.js';

const delta = JSON.stringify(
  [
    { role: 'user', timestamp: '2026-11-23T09:00:00Z', content: 'Remember: deploys run\n scripts/ship.sh.' },
    { role: 'assistant', content: [{ type: 'text', text: 'Noted.' }, { type: 'toolCall', name: 'memory_retain', arguments: {} }], model: 'm' },
    { role: 'toolResult', toolName: 'bash', content: [{ type: 'text', text: 'ok' }] },
    { role: 'assistant', content: [{ type: 'thinking', thinking: 'hidden' }] },
  ],
  null,
  2,
);

describe('conversationText', () => {
  it('renders a retained delta as one role: text line per message', () => {
    expect(conversationText(delta)).toBe('user: Remember: deploys run scripts/ship.sh.\nassistant: Noted. [tool call memory_retain]\ntool bash: ok');
  });

  it('leaves anything that is not a whole message array alone', () => {
    for (const raw of ['plain fact', '[1, 2]', '[{"content": "no role"}]', delta.slice(0, 40), '[]', '{"role":"user"}']) expect(conversationText(raw)).toBeUndefined();
  });

  it('never throws (property)', () => {
    fc.assert(fc.property(fc.oneof(fc.string(), fc.json()), (raw) => void conversationText(raw)));
  });

  it('is what the recall block shows for a retained turn', () => {
    const block = renderRecallBlock([{ bankId: 'b', items: [{ text: delta, tags: ['project:x'] }] }]);
    expect(block?.text).toContain('1. user: Remember: deploys run scripts/ship.sh.\n   assistant: Noted. [tool call memory_retain]');
    expect(block?.text).not.toContain('"role"');
  });
});
