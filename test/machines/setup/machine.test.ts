import { describe, expect, it } from 'vitest';
import * as E from 'fp-ts/lib/Either.js';
import { initialTransition, transition, type SnapshotFrom } from 'xstate';
import { getShortestPaths } from 'xstate/graph';
import { belowFloor } from '../../../src/machines/setup/context.js';
import { SetupEvent } from '../../../src/machines/setup/events.js';
import { setupMachine, type SetupMachine } from '../../../src/machines/setup/machine.js';
import { setupState } from '../../../src/machines/setup/selectors.js';
import { decodeWith } from '../../../src/codecs/decode.js';

type Snapshot = SnapshotFrom<SetupMachine>;
const decode = decodeWith(SetupEvent, 'setup event');
const step = (snapshot: Snapshot, input: unknown): [Snapshot, { type: string; params?: unknown }[]] => {
  const event = decode(input);
  if (E.isLeft(event)) throw new Error(event.left.message);
  const [next, actions] = transition(setupMachine, snapshot, event.right);
  return [next, actions.map((a) => ({ type: a.type, params: a.params }))];
};
const configured = (over: Record<string, unknown> = {}) => ({ type: 'setup.configured', at: 1, enabled: true, configured: true, banks: ['coding'], ...over });
const probing = (): Snapshot => step(initialTransition(setupMachine)[0], configured())[0];

describe('setup machine', () => {
  it('is disabled when enabled is false, unconfigured without setup, probing otherwise', () => {
    const [initial] = initialTransition(setupMachine);
    expect(setupState(step(initial, configured({ enabled: false }))[0])).toBe('disabled');
    const [unconfigured] = step(initial, configured({ configured: false, reason: 'set banks.project.bankId' }));
    expect(setupState(unconfigured)).toBe('unconfigured');
    expect(unconfigured.context.detail).toBe('set banks.project.bankId');
    const [next, actions] = step(initial, configured());
    expect(setupState(next)).toBe('probing');
    expect(actions.map((a) => a.type)).toContain('probe');
  });

  it('becomes ready when the server meets the floor and the banks exist', () => {
    const [ready] = step(probing(), { type: 'setup.probe.succeeded', at: 2, apiVersion: '0.9.1', append: true, missingBanks: [] });
    expect(setupState(ready)).toBe('ready');
    expect(ready.context.apiVersion).toBe('0.9.1');
  });

  it('creates only the banks known to be missing, then is ready', () => {
    const [missing, actions] = step(probing(), { type: 'setup.probe.succeeded', at: 2, apiVersion: '0.9.1', append: true, missingBanks: ['coding'] });
    expect(setupState(missing)).toBe('bankMissing');
    expect(actions).toContainEqual({ type: 'ensureBanks', params: { banks: ['coding'] } });
    expect(setupState(step(missing, { type: 'setup.banks.ensured', at: 3 })[0])).toBe('ready');
  });

  it('is unsupported below the 0.8 floor or without append, and says to upgrade', () => {
    const [old] = step(probing(), { type: 'setup.probe.succeeded', at: 2, apiVersion: '0.7.3', append: true, missingBanks: [] });
    expect(setupState(old)).toBe('unsupported');
    expect(old.context.detail).toContain('upgrade the server to 0.8 or later');
    const [noAppend] = step(probing(), { type: 'setup.probe.succeeded', at: 2, apiVersion: '0.9.0', append: false, missingBanks: [] });
    expect(setupState(noAppend)).toBe('unsupported');
    expect(noAppend.context.detail).toContain('append');
  });

  it('degrades when the server is down, keeps the retry time in context, and probes again', () => {
    const [down, actions] = step(probing(), { type: 'setup.probe.failed', at: 2, reason: 'memory server unreachable', retryAt: 30_002 });
    expect(setupState(down)).toBe('degraded');
    expect(down.context.retryAt).toBe(30_002);
    expect(actions).toContainEqual({ type: 'scheduleRetry', params: { at: 30_002 } });
    const [again, retryActions] = step(down, { type: 'setup.probe.retry', at: 30_002 });
    expect(setupState(again)).toBe('probing');
    expect(retryActions.map((a) => a.type)).toContain('probe');
    const [ready] = step(again, { type: 'setup.probe.succeeded', at: 30_100, apiVersion: '0.9.1', append: true, missingBanks: [] });
    expect(setupState(ready)).toBe('ready');
    expect(setupState(step(ready, { type: 'setup.server.lost', at: 40_000, reason: 'breaker open', retryAt: 70_000 })[0])).toBe('degraded');
  });

  it('lets a new config override any state', () => {
    const [down] = step(probing(), { type: 'setup.probe.failed', at: 2, reason: 'x', retryAt: 9 });
    expect(setupState(step(down, configured({ enabled: false }))[0])).toBe('disabled');
  });

  it('compares server versions against the floor', () => {
    expect(belowFloor('0.7.9')).toBe(true);
    expect(belowFloor('v0.8.0')).toBe(false);
    expect(belowFloor('0.10.2')).toBe(false);
    expect(belowFloor('1.0.0')).toBe(false);
    expect(belowFloor('unknown')).toBe(false);
  });

  it('names the bad field of a malformed event', () => {
    const bad = decode({ type: 'setup.probe.failed', at: 1, reason: 'x' });
    expect(E.isLeft(bad) && bad.left.message.includes('field retryAt')).toBe(true);
  });

  it('reaches every state (xstate/graph)', () => {
    const events = [
      configured(),
      configured({ enabled: false }),
      configured({ configured: false }),
      { type: 'setup.probe.succeeded', at: 2, apiVersion: '0.9.1', append: true, missingBanks: [] },
      { type: 'setup.probe.succeeded', at: 2, apiVersion: '0.9.1', append: true, missingBanks: ['coding'] },
      { type: 'setup.probe.succeeded', at: 2, apiVersion: '0.7.0', append: true, missingBanks: [] },
      { type: 'setup.probe.failed', at: 2, reason: 'down', retryAt: 10 },
      { type: 'setup.probe.retry', at: 10 },
      { type: 'setup.banks.ensured', at: 3 },
    ] as SetupEvent[];
    const paths = getShortestPaths(setupMachine, { events, serializeState: (s) => JSON.stringify((s as Snapshot).value) });
    expect(new Set(paths.map((p) => setupState(p.state as Snapshot)))).toEqual(
      new Set(['unconfigured', 'disabled', 'probing', 'bankMissing', 'ready', 'degraded', 'unsupported']),
    );
  });
});
