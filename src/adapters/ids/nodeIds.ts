/** The production `IdsPort`: node's crypto (random v4 uuids, SHA-256 digests). */
import { randomUUID } from 'node:crypto';
import type { IdsPort } from '../../effects/ports/ids.js';
import { sha256Hex } from './sha256Hex.js';

export const nodeIds: IdsPort = {
  uuid: () => randomUUID(),
  digest: sha256Hex,
};
