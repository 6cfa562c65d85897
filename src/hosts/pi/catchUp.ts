/**
 * What the shutdown catch-up retains of a session's branch. The catch-up exists for runs a
 * signal ended before their `agent_end` retain ran; the retain cursor skips what live retain
 * already took. A session `agent-memory import` brought in is not in the cursor, so resuming it
 * in pi would retain its whole history a second time at quit: messages written before the
 * session's last import are left out (the import holds them; the next import takes any it left).
 */
import { lastImportedAt } from '../../effects/import/manifest.js';
import type { HostMessage } from '../../effects/session/messages.js';
import { readStateFileSync } from '../../adapters/fs/safeFile.js';

// A manifest bigger than this is not read here: the catch-up then takes the branch as before.
const MAX_MANIFEST_BYTES = 32 * 1024 * 1024;

const importedAt = (manifestPath: string, sessionId: string): number | undefined => {
  try {
    const text = readStateFileSync(manifestPath, MAX_MANIFEST_BYTES);
    return text === undefined ? undefined : lastImportedAt(JSON.parse(text), sessionId);
  } catch {
    return undefined;
  }
};

export const catchUpMessages = (messages: readonly HostMessage[], sessionId: string, manifestPath: string): HostMessage[] => {
  const since = importedAt(manifestPath, sessionId);
  if (since === undefined) return [...messages];
  return messages.filter((m) => typeof m.timestamp !== 'number' || m.timestamp > since);
};
