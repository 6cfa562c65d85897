/** node's crypto and the in-memory ids twin keep the same contract. */
import { createHash } from 'node:crypto';
import { expect, it } from 'vitest';
import { createMemoryIds } from '../../../src/adapters/ids/memoryIds.js';
import { nodeIds } from '../../../src/adapters/ids/nodeIds.js';
import { describeIdsConformance } from './conformance/ids.js';

describeIdsConformance('nodeIds', () => nodeIds);
describeIdsConformance('memory ids (twin)', () => createMemoryIds());

it('production digests are SHA-256, so ids written before the port existed still match', () => {
  expect(nodeIds.digest('pi')).toBe(createHash('sha256').update('pi').digest('hex'));
});
