/**
 * With `enabled: false` the runtime still starts, so the doctor, memory_status, /memory and
 * memory_config can explain it and undo it. The tools decide for themselves
 * (`runsWhenDisabled`); here: the /memory actions that reach the server or deliver the queue.
 */
import { trustNotice } from '../../config/trust.js';
import { disabledText } from '../../tools/disabled.js';
import type { MemoryRuntime } from '../memoryRuntime.js';

export const HUB_ACTIONS_OFF_WHEN_DISABLED: ReadonlySet<string> = new Set(['flush', 'models', 'mental-models', 'import']);

export const isDisabled = (runtime: MemoryRuntime): boolean => !runtime.loaded.config.enabled;

/** Off by trust (the project file moved memory somewhere untrusted) says so, not `enabled: false`. */
export const disabledMessage = (runtime: MemoryRuntime, what: string): string => {
  const distrust = trustNotice(runtime.loaded.trust);
  return distrust === undefined ? disabledText(runtime.loaded, what) : `${what} is off: ${distrust}. Nothing was sent.`;
};
