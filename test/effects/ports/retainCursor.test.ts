/** The retain cursor on disk and its in-memory twin keep the same contract. */
import { afterAll } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { openRetainCursor } from '../../../src/adapters/queue/retainCursor.js';
import { createMemoryRetainCursor } from '../../../src/adapters/queue/memoryRetainCursor.js';
import { describeRetainCursorConformance } from './conformance/retainCursor.js';

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

describeRetainCursorConformance('retain-cursors.json', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'am-cursor-'));
  dirs.push(dir);
  return { open: () => openRetainCursor(dir), persists: true };
});

describeRetainCursorConformance('memory twin', async () => {
  const twin = createMemoryRetainCursor();
  return { open: () => twin, persists: false };
});
