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

  describe('a sender of retains keeping its rhythm is served first', () => {
    /** A manual clock: only the answers given at once are read, never a timer's. */
    const clocked = (): { foreground: ReturnType<typeof createForeground>; at: (ms: number) => void } => {
      let now = 0;
      return { foreground: createForeground(() => now), at: (ms) => (now = ms) };
    };
    /** 'quiet' when the turn is given at once; 'waits' otherwise (its wait is aborted). */
    const atOnce = async (foreground: ReturnType<typeof createForeground>): Promise<string> => {
      const wait = new AbortController();
      const answer = await Promise.race([foreground.turn(wait.signal), Promise.resolve('waits')]);
      wait.abort();
      return answer;
    };
    const request = (foreground: ReturnType<typeof createForeground>, at: (ms: number) => void, start: number, end: number, kind?: 'retain'): void => {
      at(start);
      const leave = foreground.enter(kind);
      at(end);
      leave();
    };

    it('a pause as long as the last one between two retains is not quiet; twice as long is', async () => {
      const { foreground, at } = clocked();
      request(foreground, at, 0, 10, 'retain');
      request(foreground, at, 70, 80, 'retain'); // a pause of 60 ms: the queue journaling a batch
      at(140); // 60 ms since, longer than the 20 ms that is quiet for other requests
      expect(await atOnce(foreground)).toBe('waits');
      at(199);
      expect(await atOnce(foreground)).toBe('waits');
      at(200); // twice its rhythm: the sender has stopped
      expect(await atOnce(foreground)).toBe('quiet');
    });

    it('requests other than retains set no rhythm: a client polling its operations waits for the analysis', async () => {
      const { foreground, at } = clocked();
      request(foreground, at, 0, 10);
      request(foreground, at, 70, 80);
      request(foreground, at, 140, 150);
      at(170);
      expect(await atOnce(foreground)).toBe('quiet');
    });

    it('a retain after a pause longer than the longest wait sets no rhythm, and a rhythm defers at most that wait', async () => {
      const stopped = clocked();
      request(stopped.foreground, stopped.at, 0, 10, 'retain');
      request(stopped.foreground, stopped.at, 1_000, 1_010, 'retain');
      stopped.at(1_030);
      expect(await atOnce(stopped.foreground)).toBe('quiet');

      const slow = clocked();
      request(slow.foreground, slow.at, 0, 10, 'retain');
      request(slow.foreground, slow.at, 250, 260, 'retain'); // a pause of 240 ms: twice is 480
      slow.at(509);
      expect(await atOnce(slow.foreground)).toBe('waits');
      slow.at(510);
      expect(await atOnce(slow.foreground)).toBe('quiet');
    });
  });
});
