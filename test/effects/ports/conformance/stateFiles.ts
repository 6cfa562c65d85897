/** What every `StateFilePort` (JSON documents) keeps: round trips, missing is empty, broken is an error. */
import { describe, expect, it } from 'vitest';
import type { StateFilePort } from '../../../../src/effects/ports/stateFiles.js';

export interface StateFilesSubject {
  readonly files: StateFilePort;
  path(name: string): Promise<string>;
  put(file: string, text: string): Promise<void>;
}

export const describeStateFilesConformance = (name: string, make: () => StateFilesSubject): void => {
  describe(`StateFilePort conformance: ${name}`, () => {
    it('reads back what it wrote, as a copy; a missing file has no value and no error', async () => {
      const subject = make();
      const file = await subject.path('receipts/seed.json');
      expect(await subject.files.readJson(file)).toEqual({});
      const data = { head: 'abc', count: 2, nested: { list: [1, 'two', null] } };
      expect(await subject.files.writeJson(file, data)).toBeUndefined();
      data.count = 3;
      expect(await subject.files.readJson(file)).toEqual({ value: { head: 'abc', count: 2, nested: { list: [1, 'two', null] } } });
      expect(await subject.files.writeJson(file, { replaced: true })).toBeUndefined();
      expect((await subject.files.readJson(file)).value).toEqual({ replaced: true });
    });

    it('reads a broken file as an error naming the file and line, never throwing', async () => {
      const subject = make();
      const file = await subject.path('last-recall.json');
      await subject.put(file, '{"a":\n');
      const read = await subject.files.readJson(file);
      expect(read.value).toBeUndefined();
      expect(read.error).toContain(file);
      expect(read.error).toMatch(/invalid JSON at line/);
    });
  });
};
