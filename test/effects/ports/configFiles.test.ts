/** Config files on disk and their in-memory twin keep the same contract. */
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileConfigFiles } from '../../../src/adapters/fs/configFile.js';
import { createMemoryConfigFiles } from '../../../src/adapters/fs/memoryConfigFiles.js';
import { describeConfigFilesConformance } from './conformance/configFiles.js';

describeConfigFilesConformance('files on disk', () => ({
  files: fileConfigFiles,
  path: async (name) => path.join(await mkdtemp(path.join(tmpdir(), 'am-cfg-')), '.pi', name),
  put: async (file, text) => {
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, text);
  },
}));

describeConfigFilesConformance('memory config files (twin)', () => {
  const twin = createMemoryConfigFiles();
  let n = 0;
  return {
    files: twin,
    path: async (name) => `/cfg-${++n}/.pi/${name}`,
    put: async (file, text) => twin.put(file, text),
  };
});
