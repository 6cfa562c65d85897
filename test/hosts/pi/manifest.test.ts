/**
 * pi's light entry registers from a generated manifest and loads the binding at the first
 * event. The manifest must be what the binding registers (else a tool pi lists would not
 * exist, or one the binding has would be missing), and every registration must reach the
 * binding's own handler.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import agentMemory from '../../../src/hosts/pi/extension.js';
import { manifestOf, manifestSource, recordBinding } from '../../../src/hosts/pi/manifestOf.js';
import { createRecordingHost } from '../../../src/hosts/pi/recordingHost.js';

const generated = fileURLToPath(new URL('../../../src/hosts/pi/manifest.generated.ts', import.meta.url));

describe('pi entry manifest', () => {
  it('is what the binding registers (run `npm run pi:manifest` after changing a tool, command or hook)', () => {
    expect(readFileSync(generated, 'utf8')).toBe(manifestSource(recordBinding()));
  });

  it('the binding registers each event once, so forwarding returns its one answer', () => {
    for (const [event, handlers] of recordBinding().handlers) expect({ event, count: handlers.length }).toEqual({ event, count: 1 });
  });

  it('the entry registers exactly the binding\'s tools, commands and events', () => {
    const { api, recording } = createRecordingHost();
    agentMemory(api);
    expect(manifestOf(recording)).toEqual(manifestOf(recordBinding()));
  });

  it('a registration made by the entry runs the binding\'s handler', async () => {
    const { api, recording } = createRecordingHost();
    agentMemory(api);
    // Before any session starts, the binding answers a tool call with its own error text.
    const status = recording.tools.get('memory_status');
    await expect((status?.execute as (...a: unknown[]) => Promise<unknown>)('call-1', {}, undefined, undefined, {})).rejects.toThrow(
      /memory is not running in this session/,
    );
    // The binding never decides pi's project trust; its answer comes back through the entry.
    const trust = recording.handlers.get('project_trust')?.[0] as ((e: unknown, c: unknown) => Promise<unknown>) | undefined;
    expect(await trust?.({ type: 'project_trust', cwd: '/tmp' }, {})).toEqual({ trusted: 'undecided' });
  });
});
