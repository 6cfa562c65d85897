/** Circuit breaker transitions with an injected clock, alone and inside the client. */
import * as E from 'fp-ts/lib/Either.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBreaker } from '../../../src/adapters/server/breaker.js';
import { createMemoryServer } from '../../../src/adapters/server/client.js';
import { createManualClock, type ManualClock } from '../../../src/adapters/clock/manualClock.js';
import type { BreakerState } from '../../../src/effects/ports/memoryServer.js';
import { startFaultServer, type FaultServer } from '../../helpers/faultServer.js';

const manualClock = (): ManualClock => createManualClock();

describe('breaker state machine', () => {
  it('goes closed → open → halfOpen → closed, and reopens on a failed probe', () => {
    const clock = manualClock();
    const breaker = createBreaker(clock, { threshold: 3, coolDownMs: 1_000 });
    const seen: BreakerState['state'][] = [];
    breaker.subscribe((s) => seen.push(s.state));

    for (let i = 0; i < 2; i += 1) {
      expect(breaker.admit()).toEqual({ admitted: true, probe: false });
      breaker.record('noAnswer', false);
    }
    expect(breaker.state()).toEqual({ state: 'closed', failures: 2 });
    breaker.record('noAnswer', false);
    expect(breaker.state()).toEqual({ state: 'open', failures: 3, retryAt: 1_001_000 });
    expect(breaker.admit()).toEqual({ admitted: false, retryAt: 1_001_000 });

    clock.advance(1_000);
    expect(breaker.admit()).toEqual({ admitted: true, probe: true });
    expect(breaker.state().state).toBe('halfOpen');
    // Only one probe at a time.
    expect(breaker.admit().admitted).toBe(false);
    breaker.record('noAnswer', true);
    expect(breaker.state()).toMatchObject({ state: 'open', retryAt: 1_002_000 });

    clock.advance(1_000);
    expect(breaker.admit()).toEqual({ admitted: true, probe: true });
    breaker.record('answered', true);
    expect(breaker.state()).toEqual({ state: 'closed', failures: 0 });
    expect(seen).toEqual(['closed', 'closed', 'open', 'halfOpen', 'open', 'halfOpen', 'closed']);
  });

  it('resets the count on any answer and lets a neutral probe hand over the next chance', () => {
    const clock = manualClock();
    const breaker = createBreaker(clock, { threshold: 2, coolDownMs: 500 });
    breaker.record('noAnswer', false);
    breaker.record('answered', false);
    breaker.record('noAnswer', false);
    expect(breaker.state()).toEqual({ state: 'closed', failures: 1 });
    breaker.record('noAnswer', false);
    clock.advance(500);
    expect(breaker.admit()).toEqual({ admitted: true, probe: true });
    breaker.record('neutral', true);
    expect(breaker.admit()).toEqual({ admitted: true, probe: true });
  });
});

describe('breaker inside the client', () => {
  let faults: FaultServer;
  beforeAll(async () => {
    faults = await startFaultServer();
  });
  afterAll(async () => {
    await faults.close();
  });

  it('fails fast with circuitOpen while open, then one probe closes it', async () => {
    const clock = manualClock();
    const client = createMemoryServer({ baseUrl: faults.url, timeoutMs: 2_000, clock, breaker: { threshold: 2, coolDownMs: 5_000 }, retry: { attempts: 1, baseMs: 1, capMs: 1 } });
    const states: string[] = [];
    const stop = client.subscribeBreaker((s) => states.push(s.state));
    faults.script({ kind: 'reset' }, { kind: 'reset' });

    for (let i = 0; i < 2; i += 1) {
      const result = await client.recall('b', { query: 'q' })();
      expect(E.isLeft(result) && result.left._tag).toBe('unreachable');
    }
    expect(client.breaker()).toMatchObject({ state: 'open', failures: 2 });

    const fast = await client.recall('b', { query: 'q' })();
    expect(E.isLeft(fast) && fast.left).toEqual({ _tag: 'circuitOpen', retryAt: clock.now() + 5_000 });
    expect(faults.requests).toHaveLength(2);

    clock.advance(5_000);
    faults.script({ kind: 'json', body: { results: [] } });
    const probe = await client.recall('b', { query: 'q' })();
    expect(E.isRight(probe)).toBe(true);
    expect(client.breaker()).toEqual({ state: 'closed', failures: 0 });
    expect(states).toEqual(['closed', 'open', 'halfOpen', 'closed']);
    stop();
  });

  it('does not count an HTTP error answer as the server being down', async () => {
    const other = await startFaultServer();
    try {
      const client = createMemoryServer({ baseUrl: other.url, timeoutMs: 2_000, breaker: { threshold: 1, coolDownMs: 5_000 }, retry: { attempts: 1, baseMs: 1, capMs: 1 } });
      other.script({ kind: 'json', status: 500, body: { detail: 'boom' } });
      await client.recall('b', { query: 'q' })();
      expect(client.breaker().state).toBe('closed');
    } finally {
      await other.close();
    }
  });
});
