/** What every `ConfigFilePort` keeps: absent/valid/broken reads, and writes only over the bytes read. */
import { describe, expect, it } from 'vitest';
import type { ConfigFilePort } from '../../../../src/effects/ports/configFiles.js';

export interface ConfigFilesSubject {
  readonly files: ConfigFilePort;
  /** A path no file is at yet. */
  path(name: string): Promise<string>;
  /** Puts raw text at `file` behind the port's back (a user's edit). */
  put(file: string, text: string): Promise<void>;
}

export const describeConfigFilesConformance = (name: string, make: () => ConfigFilesSubject): void => {
  describe(`ConfigFilePort conformance: ${name}`, () => {
    it('reads a missing file as absent and writes it when the token is `absent`', async () => {
      const subject = make();
      const file = await subject.path('memory.json');
      const absent = subject.files.read('project', file);
      expect(absent).toMatchObject({ scope: 'project', path: file, exists: false, token: 'absent' });
      expect(await subject.files.write(file, 'project', absent.token, { enabled: false })).toBeUndefined();
      const written = subject.files.read('project', file);
      expect(written).toMatchObject({ exists: true, data: { enabled: false } });
      expect(written.token).not.toBe('absent');
    });

    it('refuses a write over a file that changed since it was read, and keeps the change', async () => {
      const subject = make();
      const file = await subject.path('memory.json');
      await subject.put(file, '{"a":1}');
      const read = subject.files.read('user', file);
      await subject.put(file, '{"a":2}');
      const error = await subject.files.write(file, 'user', read.token, { a: 3 });
      expect(error).toMatch(/changed/);
      expect(subject.files.read('user', file).data).toEqual({ a: 2 });
    });

    it('reads a broken file as an error naming the line, with no data', async () => {
      const subject = make();
      const file = await subject.path('memory.json');
      await subject.put(file, '{\n  "a": ,\n}');
      const read = subject.files.read('project', file);
      expect(read.exists).toBe(true);
      expect(read.data).toBeUndefined();
      expect(read.error?.message).toMatch(/invalid JSON at line 2/);
    });
  });
};
