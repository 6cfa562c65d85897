/**
 * Lower-cased word tokens (letters, digits, underscore in any script), stop words dropped,
 * plurals folded, so "deploy" finds "deploys" (query and index fold alike).
 */
import { foldPlural } from '../features/terms.js';
import { STOP_WORDS } from './stopwords.js';

const WORD = /[\p{L}\p{N}_]+/gu;

export const tokenize = (text: string): string[] => {
  const out: string[] = [];
  for (const match of text.toLowerCase().matchAll(WORD)) {
    const term = match[0];
    if (!STOP_WORDS.has(term)) out.push(foldPlural(term));
  }
  return out;
};
