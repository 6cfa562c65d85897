/**
 * The answer while memory is disabled (`enabled: false`): what is off, where it was turned
 * off, and how to turn it back on. Tools that only report or edit settings still run
 * (`runsWhenDisabled`); so do /memory status, the doctor and settings.
 */
import type { LoadedConfig } from '../config/load.js';

export const disabledText = (loaded: Pick<LoadedConfig, 'files' | 'sources'>, what: string): string => {
  const { files, sources } = loaded;
  const source = sources.enabled;
  const where = source === 'project' ? files.project.path : source === 'env' ? 'the environment (PI_MEMORY_ENABLED)' : files.user.path;
  const how =
    source === 'env'
      ? 'Unset PI_MEMORY_ENABLED (or set it to true)'
      : `Turn it back on in /memory ("Turn memory on"), or remove "enabled": false from ${where}`;
  return (
    `${what} is off: memory is disabled (enabled: false in ${where}). ${how}, then start a new session (/new or /reload). ` +
    'memory_status, memory_config, memory_scope, /memory, /memory settings and /memory:doctor work while it is off.'
  );
};
