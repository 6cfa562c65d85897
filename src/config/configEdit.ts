/**
 * Pure edits of a config file's JSON: set a dotted path (creating objects on the way), or
 * remove one (pruning objects it leaves empty). Other keys, including ones this version does
 * not know, are kept as they are.
 */
type Json = Record<string, unknown>;

const isObject = (u: unknown): u is Json => typeof u === 'object' && u !== null && !Array.isArray(u);

const clone = (u: unknown): Json => (isObject(u) ? (structuredClone(u) as Json) : {});

const define = (target: Json, key: string, value: unknown): void => {
  // defineProperty: a `__proto__` segment stays a plain key.
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
};

const setPath = (root: Json, dotted: string, value: unknown): void => {
  const parts = dotted.split('.');
  let cur = root;
  for (const part of parts.slice(0, -1)) {
    const next = Object.hasOwn(cur, part) ? cur[part] : undefined;
    if (!isObject(next)) define(cur, part, {});
    cur = cur[part] as Json;
  }
  define(cur, parts[parts.length - 1] as string, value);
};

const unsetPath = (root: Json, dotted: string): void => {
  const parts = dotted.split('.');
  const trail: Json[] = [root];
  let cur: unknown = root;
  for (const part of parts.slice(0, -1)) {
    if (!isObject(cur) || !Object.hasOwn(cur, part)) return;
    cur = cur[part];
    if (!isObject(cur)) return;
    trail.push(cur);
  }
  const last = parts[parts.length - 1] as string;
  const holder = trail[trail.length - 1] as Json;
  if (!Object.hasOwn(holder, last)) return;
  delete holder[last];
  for (let i = trail.length - 1; i > 0; i -= 1) {
    const node = trail[i] as Json;
    if (Object.keys(node).length > 0) break;
    delete (trail[i - 1] as Json)[parts[i - 1] as string];
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
