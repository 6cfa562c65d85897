/**
 * Pure edits of a config file's JSON: set a dotted path (creating objects on the way), or
 * remove one (pruning objects it leaves empty). Other keys, including ones this version does
 * not know, are kept as they are.
 */
type Json = Record<string, unknown>;

const isObject = (u: unknown): u is Json => typeof u === 'object' && u !== null && !Array.isArray(u);

const clone = (u: unknown): Json => (isObject(u) ? structuredClone(u) : {});

const define = (target: Json, key: string, value: unknown): void => {
  // defineProperty: a `__proto__` segment stays a plain key.
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
};

const setPath = (root: Json, dotted: string, value: unknown): void => {
  const parts = dotted.split('.');
  // split gives at least one part: the key set; the rest are the objects on the way.
  const last = parts.pop() ?? '';
  let cur = root;
  for (const part of parts) {
    const existing = Object.hasOwn(cur, part) ? cur[part] : undefined;
    const next: Json = isObject(existing) ? existing : {};
    if (next !== existing) define(cur, part, next);
    cur = next;
  }
  define(cur, last, value);
};

const unsetPath = (root: Json, dotted: string): void => {
  const parts = dotted.split('.');
  const last = parts.pop() ?? '';
  // Each object on the way, with its parent and its key there, to prune the ones left empty.
  const trail: { readonly parent: Json; readonly key: string; readonly node: Json }[] = [];
  let holder = root;
  for (const part of parts) {
    const next = Object.hasOwn(holder, part) ? holder[part] : undefined;
    if (!isObject(next)) return;
    trail.push({ parent: holder, key: part, node: next });
    holder = next;
  }
  if (!Object.hasOwn(holder, last)) return;
  delete holder[last];
  for (const { parent, key, node } of trail.reverse()) {
    if (Object.keys(node).length > 0) break;
    delete parent[key];
  }
};

export interface ConfigEdit {
  readonly set: readonly { readonly path: string; readonly value: unknown }[];
  readonly unset: readonly string[];
}

/** The file's new JSON object after `edit`; `data` itself is not changed. */
export const applyConfigEdit = (data: unknown, edit: ConfigEdit): Json => {
  const out = clone(data);
  for (const p of edit.unset) unsetPath(out, p);
  for (const { path, value } of edit.set) setPath(out, path, value);
  return out;
};
