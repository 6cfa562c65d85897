/**
 * Identities and content digests for effects, which never import `node:crypto`:
 * `src/adapters/ids/nodeIds.ts` implements it, `src/adapters/ids/memoryIds.ts` is its twin.
 */
export interface IdsPort {
  /** A fresh random id (RFC 4122 v4 shape), unique per call. */
  uuid(): string;
  /** A stable digest of `text`: 64 lowercase hex characters (SHA-256 in production). */
  digest(text: string): string;
}
