/** FNV-1a over the UTF-16 code units: cheap, and the id is compared on every hit. */
export const hashOf = (id: string): number => {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193);
  return h >>> 0;
};
