/** What every `TracePort` keeps: every record, in the order written, as JSON. */
import { describe, expect, it } from 'vitest';
import type { TracePort, TraceRecord } from '../../../../src/effects/ports/trace.js';

export interface TraceSubject {
  readonly trace: TracePort;
  /** What the port holds now, read back. */
  records(): Promise<readonly TraceRecord[]>;
}

export const describeTraceConformance = (name: string, make: () => Promise<TraceSubject>): void => {
  describe(`TracePort conformance: ${name}`, () => {
    it('keeps every record in the order written', async () => {
      const subject = await make();
      const written: TraceRecord[] = [
        { gate: 'setup', kind: 'event', at: '2026-11-23T10:00:00.000Z', data: { type: 'setup.configured' } },
        { gate: 'setup', kind: 'transition', at: '2026-11-23T10:00:00.001Z', data: { value: 'probing', status: 'active' } },
        { gate: 'session', kind: 'effect', at: '2026-11-23T10:00:00.002Z', data: { action: 'retainRun', params: { runId: 'r' } } },
        { gate: 'session', kind: 'rejected', at: '2026-11-23T10:00:00.003Z', data: { error: 'bad' } },
      ];
      for (const record of written) subject.trace.write(record);
      expect(await subject.records()).toEqual(written);
    });
  });
};
