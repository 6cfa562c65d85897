/** JSON documents on disk and their in-memory twin keep the same contract. */
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { createMemoryStateFiles } from '../../../src/adapters/fs/memoryStateFiles.js';
import { fileStateFiles } from '../../../src/adapters/fs/stateFiles.js';
import { describeStateFilesConformance } from './conformance/stateFiles.js';

describeStateFilesConformance('files on disk', () => ({
  files: fileStateFiles,
  path: async (name) => path.join(await mkdtemp(path.join(tmpdir(), 'am-state-')), 'memory', name),
  put: async (file, text) => {
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, text);
  },
}));

describeStateFilesConformance('memory state files (twin)', () => {
  const twin = createMemoryStateFiles();
  let n = 0;
  return {
    files: twin,
    path: async (name) => `/state-${++n}/memory/${name}`,
    put: async (file, text) => twin.put(file, text),
  };
});
