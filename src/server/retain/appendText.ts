/**
 * What `update_mode: "append"` stores: old text + "\n" + new text, except that a JSON array
 * of objects on both sides is merged into one JSON array (upstream 0.8.4, keeps conversation
 * chunking).
 */
const objectArray = (text: string): unknown[] | undefined => {
  const trimmed = text.trim();
  if (!trimmed.startsWith('[')) return undefined;
  try {
    const parsed: unknown = JSON.parse(trimmed);
    return Array.isArray(parsed) && parsed.every((x) => typeof x === 'object' && x !== null && !Array.isArray(x)) ? parsed : undefined;
  } catch {
    return undefined;
  }
};

/** The new contents to store, given the old text and the new items' contents (in order). */
export const appendContents = (oldText: string, newContents: readonly string[]): string[] => {
  const oldArray = objectArray(oldText);
  const newArrays = newContents.map(objectArray);
  if (oldArray !== undefined && newArrays.every((a) => a !== undefined)) {
    return [JSON.stringify([...oldArray, ...newArrays.flatMap((a) => a ?? [])])];
  }
  return [oldText, ...newContents];
};
