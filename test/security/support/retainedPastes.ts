/**
 * Pastes retained through the real `memory_retain` tool (real queue, embedded server), and what
 * then holds them: the queue journal's text and every stored document of the coding bank. The
 * secret tests look in both for what must not be there.
 */
import { readFileSync } from 'node:fs';
import { call } from '../../helpers/embeddedServer.js';
import { CODING_BANK, type Harness } from '../../tools/harness.js';

const B = '/v1/default/banks';

export const retainPastes = async (h: Harness, pastes: readonly (readonly [string, string, ...unknown[]])[]): Promise<{ journal: string; held: string }> => {
  for (const [name, text] of pastes) {
    await h.ok('memory_retain', { content: `Note on ${name}: ${text}`, context: `pasted ${name}` });
  }
  const journal = readFileSync(h.queuePath, 'utf8');
  const docs = await call(h, 'GET', `${B}/${CODING_BANK}/documents?limit=1000`);
  const items = docs.status === 200 ? (docs.body.items as { id: string }[]) : [];
  const held = (await Promise.all(items.map(async (d) => JSON.stringify((await call(h, 'GET', `${B}/${CODING_BANK}/documents/${encodeURIComponent(d.id)}`)).body)))).join('\n');
  return { journal, held };
};
