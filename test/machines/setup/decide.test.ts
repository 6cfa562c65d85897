import { describe, expect, it } from 'vitest';
import * as E from 'fp-ts/lib/Either.js';
import { banksEnsureFailed, probeFailed, probeSucceeded, RETRY_AFTER_MS } from '../../../src/machines/setup/decide.js';
import { SetupEvent, setupEventTypes, setupEvents } from '../../../src/machines/setup/events.js';

describe('setup decisions', () => {
  it('a failed probe or bank creation retries RETRY_AFTER_MS after it failed', () => {
    expect(probeFailed(1_000, 'refused')).toEqual({ type: 'setup.probe.failed', at: 1_000, reason: 'refused', retryAt: 1_000 + RETRY_AFTER_MS });
    expect(banksEnsureFailed(5, 'no')).toEqual({ type: 'setup.banks.ensureFailed', at: 5, reason: 'no', retryAt: 5 + RETRY_AFTER_MS });
  });

  it('a probe names exactly the banks that do not exist, in order', () => {
    const event = probeSucceeded(7, {
      apiVersion: '0.8.6',
      append: true,
      exists: [
        { bankId: 'a', exists: true },
        { bankId: 'b', exists: false },
        { bankId: 'c', exists: false },
      ],
    });
    expect(event).toEqual({ type: 'setup.probe.succeeded', at: 7, apiVersion: '0.8.6', append: true, missingBanks: ['b', 'c'] });
  });

  it('every constructor builds an event its codec accepts', () => {
    const built = [
      setupEvents.configured({ at: 1, enabled: true, configured: false, banks: ['x'], reason: 'r' }),
      setupEvents.probeSucceeded({ at: 1, apiVersion: '1', append: true, missingBanks: [] }),
      setupEvents.probeFailed({ at: 1, reason: 'r', retryAt: 2 }),
      setupEvents.banksEnsured({ at: 1 }),
      setupEvents.banksEnsureFailed({ at: 1, reason: 'r', retryAt: 2 }),
      setupEvents.serverLost({ at: 1, reason: 'r', retryAt: 2 }),
      setupEvents.probeRetry({ at: 1 }),
      setupEvents.firstRunAnswered({ at: 1, choice: 'never' }),
      setupEvents.firstRunTold({ at: 1 }),
      setupEvents.guideStarted({ at: 1, via: 'command' }),
      setupEvents.guideAnswered({ at: 1, step: 'server', answer: 'http://localhost:8888' }),
      setupEvents.guideSkipped({ at: 1, step: 'key' }),
      setupEvents.guideCancelled({ at: 1, step: 'review' }),
      setupEvents.configWritten({ at: 1, via: 'setup', files: ['/p/.pi/memory.json'], fields: ['setupComplete'] }),
      setupEvents.configWriteFailed({ at: 1, reason: 'disk full' }),
    ];
    for (const event of built) expect(E.isRight(SetupEvent.decode(event)), event.type).toBe(true);
    expect(new Set(built.map((e) => e.type)).size).toBe(setupEventTypes.length);
  });
});
