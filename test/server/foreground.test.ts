import { describe, expect, it } from 'vitest';
import { createForeground } from '../../src/server/foreground.js';

const timeouts = (): number => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;

describe('foreground: background work waits for a pause in requests', () => {
  it('gives a turn at once when no request has been served', async () => {
    await expect(createForeground().turn()).resolves.toBe('quiet');
  });

  it('gives an overdue turn while a request stays in flight, and a quiet one after it ends', async () => {
    const foreground = createForeground();
    const leave = foreground.enter();
    await expect(foreground.turn()).resolves.toBe('overdue');
    leave();
    await expect(foreground.turn()).resolves.toBe('quiet');
  });

  it('stops looking for a pause once its wait is aborted: no timer is left behind', async () => {
    const foreground = createForeground();
    const leave = foreground.enter();
    const before = timeouts();
    const wait = new AbortController();
    let settled = false;
    void foreground.turn(wait.signal).then(() => {
      settled = true;
    });
    expect(timeouts()).toBe(before + 1);
    wait.abort();
    expect(timeouts()).toBe(before);
    // Long past the longest wait: an aborted turn never resolves, and nothing polls for it.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(settled).toBe(false);
    // Other timers (the runner's) may have ended meanwhile; none of ours was started again.
    expect(timeouts()).toBeLessThanOrEqual(before);
    leave();
  });
});
