/** FNV-1a's 32-bit offset basis and prime (also the lookup files' key hash, sortedLines.ts). */
export const FNV_OFFSET = 0x811c9dc5;
export const FNV_PRIME = 0x01000193;

/** FNV-1a over the UTF-16 code units: cheap, and the id is compared on every hit. */
export const hashOf = (id: string): number => {
  let h = FNV_OFFSET;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), FNV_PRIME);
  return h >>> 0;
};

/**
 * The probing both typed id tables share (the store's restored ids, the search index's id ->
 * number): `slots` holds a place in `ids` plus one (0: empty), `mask` is its length minus one,
 * linear probing from the id's hash. The slot that holds `id`, or else the empty slot where it
 * would go; a slot whose place no longer names the id (cleared or reused) is passed over.
 */
export const slotOf = (slots: Int32Array, mask: number, ids: readonly (string | undefined)[], id: string): number => {
  let slot = hashOf(id) & mask;
  for (;;) {
    const held = slots[slot] ?? 0;
    if (held === 0 || ids[held - 1] === id) return slot;
    slot = (slot + 1) & mask;
  }
};
