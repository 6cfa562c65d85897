/**
 * `defineGateEvents`: one declaration gives codecs, constructors and types, every type carries
 * its gate, and journals written before the prefix still read (the session and setup replay
 * fixtures in fixtures/replay/ are such journals; the import checkpoint below is another).
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import * as E from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import { afterAll, describe, expect, it } from 'vitest';
import { EpochMs } from '../../../src/codecs/codecs.js';
import { decodeWith } from '../../../src/codecs/decode.js';
import { decodesToItself } from '../../../src/codecs/identityCodec.js';
import { defineGateEvents, fields } from '../../../src/machines/shared/gateEvents.js';
import { SessionEvent, sessionEventTypes, sessionEvents } from '../../../src/machines/session/events.js';
import { RetainDeliveryEvent, retainEvents } from '../../../src/machines/retainDelivery/events.js';
import { setupEventTypes } from '../../../src/machines/setup/events.js';
import { ImportEvent, importEventTypes } from '../../../src/machines/import/events.js';
import { importMachine } from '../../../src/machines/import/machine.js';
import { importView } from '../../../src/machines/import/selectors.js';
import { initialTransition, transition } from 'xstate';
import { readImportStatus } from '../../../src/hosts/importer.js';

const demo = defineGateEvents(
  'demo',
  {
    started: fields({ id: t.string }, { note: t.string }),
    'retry.due': fields({ after: EpochMs }),
    stopped: fields(),
  },
  { readsUnprefixed: true },
);
const decode = decodeWith(demo.codec, 'demo event');

const roots: string[] = [];
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

describe('defineGateEvents', () => {
  it('builds each event in wire shape, with its gate in the type, and decodes what it built', () => {
    const built = [demo.make.started({ at: 1, id: 'a' }), demo.make.started({ at: 2, id: 'b', note: 'n' }), demo.make.retryDue({ at: 3, after: 9 }), demo.make.stopped({ at: 4 })];
    expect(built.map((event) => event.type)).toEqual(['demo.started', 'demo.started', 'demo.retry.due', 'demo.stopped']);
    expect(demo.types).toEqual(['demo.started', 'demo.retry.due', 'demo.stopped']);
    for (const event of built) expect(decode(event)).toEqual(E.right(event));
  });

  it('refuses an event with a bad field, naming it, and a type of another gate', () => {
    const bad = decode({ type: 'demo.retry.due', at: 1, after: -1 });
    expect(E.isLeft(bad) && bad.left.message).toContain('field after');
    expect(E.isLeft(decode({ type: 'other.started', at: 1, id: 'a' }))).toBe(true);
  });

  it('reads a record written before the prefix as its prefixed event; without the option it is refused', () => {
    expect(decode({ type: 'retry.due', at: 1, after: 5 })).toEqual(E.right({ type: 'demo.retry.due', at: 1, after: 5 }));
    const strict = defineGateEvents('demo', { started: fields({ id: t.string }), stopped: fields() });
    expect(E.isLeft(decodeWith(strict.codec, 'demo event')({ type: 'started', at: 1, id: 'a' }))).toBe(true);
  });

  it('keeps the cheap identity decode: a prefixed event decodes to itself', () => {
    expect(decodesToItself(demo.codec)).toBe(true);
    const event = demo.make.started({ at: 1, id: 'a' });
    const decoded = decode(event);
    expect(E.isRight(decoded) && decoded.right).toBe(event);
  });
});

describe('the four gates', () => {
  it('share no event type', () => {
    const all = [...sessionEventTypes, ...setupEventTypes, ...importEventTypes, ...Object.values(retainEvents).map((make) => make({ at: 0, jobIds: [], jobs: [], batch: { jobIds: [], operationId: 'o', owner: 'p' }, reason: 'r', receipt: { operationId: null, itemsCount: 0, async: false }, failureClass: 'retry', status: null, owner: 'p', deadLetters: [], inFlight: null, pausedReason: null, retryAt: null, failures: 0 }).type)];
    expect(new Set(all).size).toBe(all.length);
  });

  it("the session's retain.failed and the delivery gate's are different events", () => {
    const session = sessionEvents.retainFailed({ at: 1, runId: 'run-1', reason: 'disk full' });
    expect(session.type).toBe('session.retain.failed');
    expect(E.isLeft(decodeWith(RetainDeliveryEvent, 'retain event')(session))).toBe(true);
    const delivery = retainEvents.failed({ at: 1, jobIds: ['j1'], failureClass: 'retry', reason: 'timeout' });
    expect(delivery.type).toBe('retain.failed');
    expect(E.isLeft(decodeWith(SessionEvent, 'session event')(delivery))).toBe(true);
    // A session journal from before the prefix: its `retain.failed` is the session's.
    expect(decodeWith(SessionEvent, 'session event')({ type: 'retain.failed', at: 1, runId: 'run-1', reason: 'disk full' })).toEqual(E.right(session));
  });

  it('an import checkpoint written before the prefix resumes where it stopped', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'am-gate-events-'));
    roots.push(root);
    const checkpoint = path.join(root, 'import-checkpoint.jsonl');
    copyFileSync(path.resolve(__dirname, '../../../fixtures/journals/import-checkpoint-unprefixed.jsonl'), checkpoint);
    const view = await readImportStatus(checkpoint);
    // The same events with today's names, folded through the machine: the same view.
    const payloads = readFileSync(checkpoint, 'utf8')
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => (JSON.parse(line) as { payload: { type: string } }).payload);
    expect(payloads.some((payload) => payload.type === 'scan.finished')).toBe(true);
    let [snapshot] = initialTransition(importMachine);
    for (const payload of payloads) {
      const event = decodeWith(ImportEvent, 'import event')({ ...payload, type: payload.type.startsWith('import.') ? payload.type : `import.${payload.type}` });
      if (E.isLeft(event)) throw new Error(event.left.message);
      [snapshot] = transition(importMachine, snapshot, event.right);
    }
    expect(view).toEqual(importView(snapshot));
    expect(view).toMatchObject({ documents: 3, queued: 2, skipped: 1, pause: { cause: 'interrupted' } });
  });
});
