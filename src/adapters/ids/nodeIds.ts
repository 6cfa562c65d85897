/** The production `IdsPort`: node's crypto (random v4 uuids, SHA-256 digests). */
import { createHash, randomUUID } from 'node:crypto';
import type { IdsPort } from '../../effects/ports/ids.js';

export const nodeIds: IdsPort = {
  uuid: () => randomUUID(),
  digest: (text) => createHash('sha256').update(text).digest('hex'),
};
