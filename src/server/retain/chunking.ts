/**
 * Splits a document's text into chunks of at most `size` characters (upstream default 3000),
 * preferring a paragraph, line or sentence break, then a space, in the last part of a window.
 * In chunks mode each chunk becomes one `world` fact.
 */
export const CHUNK_SIZE = 3000;

export const chunkText = (text: string, size = CHUNK_SIZE): string[] => {
  if (text.length <= size) return [text];
  const chunks: string[] = [];
  let start = 0;
  while (start < text.length) {
    if (text.length - start <= size) {
      chunks.push(text.slice(start));
      break;
    }
    const window = text.slice(start, start + size);
    const floor = Math.floor(size / 2);
    let cut = -1;
    for (const sep of ['\n\n', '\n', '. ', ' ']) {
      const at = window.lastIndexOf(sep);
      if (at >= floor) {
        cut = at + sep.length;
        break;
      }
    }
    if (cut <= 0) cut = size;
    chunks.push(window.slice(0, cut));
    start += cut;
  }
  return chunks.filter((c) => c.length > 0);
};
