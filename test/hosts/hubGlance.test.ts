/**
 * The hub's first lines at 80 columns and 24 rows: at most three lines of at most 78
 * characters (pi draws the title one column in), so its twelve choices fit under them. Not set
 * up, it said "Memory: unconfigured (memory is not set up in this project yet: it needs ... run
 * /memory setup in pi (or set banks.project.bankId in .pi/memory.json))" and a placeholder
 * bank, five lines that pushed the state off the top of the screen.
 */
import { describe, expect, it } from 'vitest';
import { hubGlance } from '../../src/hosts/pi/hubGlance.js';
import { AWAITING_PROJECT_BANK } from '../../src/config/scope.js';

const base = { bank: 'pi-project-proj-aa22fb230728', tag: 'project:proj', queue: { depth: 0, deadLetters: 0 }, setupEntry: 'Set up memory (guided)' };
const fits = (text: string, maxLines = 3, width = 78): void => {
  const lines = text.split('\n');
  expect(lines.length).toBeLessThanOrEqual(maxLines);
  expect(lines.filter((l) => [...l].length > width)).toEqual([]);
};

describe('the hub at a glance', () => {
  it('not set up: says so and names the hub entry that sets it up, not a config field or a placeholder bank', () => {
    const text = hubGlance({ ...base, state: 'unconfigured', detail: `memory is not set up in this project yet: ${AWAITING_PROJECT_BANK}` });
    fits(text);
    expect(text).toContain('Choose "Set up memory (guided)" below.');
    expect(text).not.toContain('pi-project-proj');
    expect(text).not.toMatch(/banks\.project|\/memory setup in pi/);
  });

  it('ready, degraded with a long reason, off, and a long bank name each fit', () => {
    const ready = hubGlance({ ...base, state: 'ready', detail: null, bank: 'coding', queue: { depth: 2, deadLetters: 1 } });
    expect(ready).toBe('Memory: ready\nBank coding, tagged project:proj · 2 queued, 1 dead letter');
    const degraded = hubGlance({ ...base, state: 'degraded', detail: 'the memory server stopped answering; your turns wait in the queue and are sent when it answers again (/memory doctor checks it)' });
    fits(degraded, 4);
    expect(degraded.split('\n')[0]).toMatch(/^Memory: degraded \(the memory server stopped answering/);
    fits(hubGlance({ ...base, state: 'degraded', detail: 'word '.repeat(80) }), 4);
    fits(hubGlance({ ...base, state: 'off', detail: null, bank: 'b'.repeat(120) }));
  });

  // Sixth pass, pi 1.6 at 60 columns: lines laid for 78 were wrapped again by pi at column 1.
  it('at 60 columns every line fits 58, not set up and degraded alike', () => {
    const unconfigured = hubGlance({ ...base, state: 'unconfigured', detail: null, columns: 60 });
    fits(unconfigured, 3, 58);
    expect(unconfigured.replace(/\n/g, ' ')).toContain('Choose "Set up memory (guided)" below.');
    const detail = "memory server unreachable (connection refused); start it with node /home/ann/agent-memory/am/package/dist/pi/serve.mjs --port 9, or choose another server in pi's /memory settings";
    const degraded = hubGlance({ ...base, state: 'degraded', detail, columns: 60 });
    fits(degraded, 5, 58);
    expect(degraded.replace(/\n/g, ' ')).toContain("or choose another server in pi's /memory settings)");
  });

  // Seventh pass: a wrong key paused saving (the footer said "memory: paused · q1") and the hub said only "Memory: ready".
  it('ready with saving paused says why and the next step, within four lines', () => {
    const reason = "memory server rejected the API key (HTTP 401: Invalid API key); set a valid key in the variable named by memory.apiKeyEnv (pi's /memory settings shows which)";
    for (const columns of [80, 60]) {
      const text = hubGlance({ ...base, state: 'ready', detail: null, bank: 'coding', queue: { depth: 1, deadLetters: 0 }, savingPaused: reason, columns });
      fits(text, 4, columns - 2);
      expect(text.replace(/\n/g, ' ')).toMatch(/^Memory: ready, but saving is paused: memory server rejected the API key/);
      expect(text.split('\n').at(-1)).toMatch(/^Bank coding, tagged project:proj · 1 queued/);
    }
  });
});
