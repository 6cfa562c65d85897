/**
 * A progress bar in a terminal (fifth pass): every CLI byte passes the output guard, which
 * writes terminal controls out as text, so `agent-memory import` and `flush` in a real terminal
 * drew `\u001b[0K\u001b[1Gplanning [██░░…` line after line instead of one bar. The bar writes
 * through `barStream`: its controls reach the terminal, a known key value still does not, and
 * anything else written to the guarded stream still has its controls written out.
 */
import { Writable } from 'node:stream';
import { Presets, SingleBar } from 'cli-progress';
import { describe, expect, it } from 'vitest';
import { barStream, guardStream } from '../../../src/hosts/cli/redactedOutput.js';

/** A terminal's stream as a bar sees it: a TTY of 80 columns, recording every byte. */
const terminal = (): { stream: NodeJS.WriteStream; bytes: () => string } => {
  const chunks: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  Object.assign(sink, { isTTY: true, columns: 80 });
  return { stream: sink as unknown as NodeJS.WriteStream, bytes: () => chunks.join('') };
};

describe("the CLI's progress bar in a terminal", () => {
  it('draws with real controls through barStream; other writes to the guarded stream have theirs written out', () => {
    const t = terminal();
    guardStream(t.stream);
    const bar = new SingleBar({ format: 'planning [{bar}] {value}/{total} files', barsize: 12, hideCursor: true, stream: barStream(t.stream) }, Presets.shades_classic);
    bar.start(56, 0);
    bar.update(28);
    bar.stop();
    const drawn = t.bytes();
    expect(drawn).toContain('\x1b[0K'); // clear to the end of the line: the bar redraws in place
    expect(drawn).toContain('planning [██████░░░░░░] 28/56 files');
    expect(drawn).not.toContain('\\u001b');

    // A repository's string with an OSC 52 clipboard write, through the same stream: written out.
    t.stream.write('bank: \x1b]52;c;ZXZpbA==\x07\n');
    expect(t.bytes()).toContain('bank: \\u001b]52;c;ZXZpbA==\\u0007');
  });

  it('the bar as the guard alone wrote it: controls as text (the bug, on the same real bar)', () => {
    const t = terminal();
    guardStream(t.stream);
    const bar = new SingleBar({ format: 'planning [{bar}] {value}/{total}', stream: t.stream }, Presets.shades_classic);
    bar.start(2, 1);
    bar.stop();
    expect(t.bytes()).toContain('\\u001b[');
  });
});
