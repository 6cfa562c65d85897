/**
 * A saved index's document ids as its file holds them (format 4): each id's UTF-8 bytes after
 * their u32 length, in document order, in a region read apart from the arrays. Start-up takes
 * the store's own string for each id (the store lists its facts in the same order, usually), so
 * the ids are never all parsed into strings of their own: at 1M memories that was 40 MB of JSON
 * in the header and a million strings, dropped as soon as the store's were found. The region is
 * held as a latin1 string, one character per byte, read a chunk at a time: a 4 MB buffer of it
 * (at 100k memories), once freed, kept malloc's arenas larger for the process's life
 * (store/chunkedRead.ts).
 */
export class StoredIds {
  private constructor(
    /** The region's bytes, one latin1 character each. */
    private readonly bytes: string,
    readonly count: number,
  ) {}

  /** The ids of `bytes` (latin1, a character per byte), or why they are not a list of `count` ids filling it exactly. */
  static of(bytes: string, count: number): StoredIds | string {
    let at = 0;
    for (let k = 0; k < count; k += 1) {
      if (at + 4 > bytes.length) return 'ids cut short';
      at += 4 + u32At(bytes, at);
    }
    return at === bytes.length ? new StoredIds(bytes, count) : 'ids do not fill their region';
  }

  /** The bytes of a list of ids. */
  static encode(ids: readonly string[]): Buffer {
    const parts = ids.map((id) => Buffer.from(id, 'utf8'));
    const out = Buffer.allocUnsafe(parts.reduce((n, p) => n + 4 + p.length, 0));
    let at = 0;
    for (const p of parts) {
      out.writeUInt32LE(p.length, at);
      p.copy(out, at + 4);
      at += 4 + p.length;
    }
    return out;
  }

  /**
   * The ids in order, each as the string `own()` lists for it where it has it: compared in place
   * while both go in the same order, then through a map of its strings (`own` is called again).
   */
  resolve(own: (() => Iterable<string>) | undefined): string[] {
    const out = new Array<string>(this.count);
    let at = 0;
    let k = 0;
    if (own !== undefined) {
      for (const id of own()) {
        if (k === this.count) break;
        const length = u32At(this.bytes, at);
        if (!this.holds(at + 4, length, id)) break;
        out[k] = id;
        at += 4 + length;
        k += 1;
      }
    }
    let strings: Map<string, string> | undefined;
    for (; k < this.count; k += 1) {
      const length = u32At(this.bytes, at);
      const id = utf8Of(this.bytes, at + 4, at + 4 + length);
      if (own !== undefined && strings === undefined) {
        strings = new Map();
        for (const s of own()) strings.set(s, s);
      }
      out[k] = strings?.get(id) ?? id;
      at += 4 + length;
    }
    return out;
  }

  /** Whether the `length` bytes at `start` are `id` in UTF-8 (compared in place when they are ASCII). */
  private holds(start: number, length: number, id: string): boolean {
    if (length < id.length) return false;
    for (let i = 0; i < length; i += 1) {
      const byte = this.bytes.charCodeAt(start + i);
      if (byte >= 0x80) return utf8Of(this.bytes, start, start + length) === id;
      if (i >= id.length || byte !== id.charCodeAt(i)) return false;
    }
    return length === id.length;
  }
}

/** The little-endian u32 at `at` of latin1 `bytes`. */
const u32At = (bytes: string, at: number): number => (bytes.charCodeAt(at) | (bytes.charCodeAt(at + 1) << 8) | (bytes.charCodeAt(at + 2) << 16) | (bytes.charCodeAt(at + 3) << 24)) >>> 0;

/** The UTF-8 text of latin1 `bytes` from `start` to `end`. */
const utf8Of = (bytes: string, start: number, end: number): string => Buffer.from(bytes.slice(start, end), 'latin1').toString('utf8');
