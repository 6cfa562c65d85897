/**
 * Which settings keep automatic memory from running here, and where each was set: a switch
 * that turns recall or retain off must never look like `memory: ready`. The footer shows the
 * short word, the doctor the sentences.
 */
import type { FieldName, MemoryConfig } from './fields.js';
import type { ConfigSource } from './trust.js';

export interface SwitchedOff {
  /** The footer's word (`retain off`), or undefined when recall and retain both run. */
  readonly word: string | undefined;
  /** One sentence per switch that is off, naming the field and where it was set. */
  readonly notes: readonly string[];
}

const where = (source: ConfigSource): string =>
  source === 'user' ? '~/.pi/agent/memory.json' : source === 'project' ? '.pi/memory.json' : source === 'env' ? 'the environment' : 'the defaults';

/** Pure. `enabled: false` is the setup gate's `off`, so only recall, retain and the profile are read here. */
export const switchedOff = (config: MemoryConfig, sources: Readonly<Record<FieldName, ConfigSource>>): SwitchedOff => {
  const notes: string[] = [];
  const retainOffByProfile = config.memoryProfile === 'recall-only' || config.memoryProfile === 'global-only';
  if (!config.retainEnabled) notes.push(`automatic retain is off: retain.enabled is false in ${where(sources.retainEnabled)}`);
  else if (retainOffByProfile) notes.push(`automatic retain is off: banks.profile is ${config.memoryProfile} in ${where(sources.memoryProfile)}`);
  if (!config.recallEnabled) notes.push(`automatic recall is off: recall.enabled is false in ${where(sources.recallEnabled)}`);
  const retainOff = !config.retainEnabled || retainOffByProfile;
  const word = retainOff && !config.recallEnabled ? 'recall+retain off' : retainOff ? 'retain off' : !config.recallEnabled ? 'recall off' : undefined;
  return { word, notes };
};
