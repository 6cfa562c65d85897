/**
 * The `code` of a Node system error ("ENOENT", "EPERM"), read from a caught value of unknown
 * type: errors thrown by node:fs, node:net and child processes carry it; anything else has none.
 */
export const errnoCode = (error: unknown): string | undefined =>
  typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string' ? error.code : undefined;
