/**
 * Every byte the CLI prints passes the redactor's known-value pass: whatever a command, a
 * library or an uncaught error writes, the API key the process resolved never reaches the
 * terminal or a log that captures it. Shape-based redaction stays with the messages
 * themselves (a page of HTML or a diagram must not be rewritten by patterns). Terminal controls
 * other than line breaks and tabs are written out as `\uNNNN` (`terminalText`): a repository's
 * config values and field names reach the doctor's lines. The one writer with controls of its
 * own, a progress bar, writes through `barStream`.
 */
import { Writable } from 'node:stream';
import { redactKnownValues } from '../../config/redact.js';
import { terminalText } from '../../config/memoryText.js';

const safe = (text: string): string => terminalText(redactKnownValues(text));

type Write = typeof process.stdout.write;
type RawWrite = (chunk: unknown, ...rest: unknown[]) => boolean;

/** Each guarded stream's own write, for `barStream`. */
const unguarded = new WeakMap<object, RawWrite>();

/** Wraps one stream's write: known values hidden, terminal controls written out. */
export const guardStream = (stream: NodeJS.WritableStream): void => {
  const write = stream.write.bind(stream) as RawWrite;
  unguarded.set(stream, write);
  const guarded = (chunk: unknown, ...rest: unknown[]): boolean => {
    if (typeof chunk === 'string') return write(safe(chunk), ...rest);
    if (chunk instanceof Uint8Array) {
      const text = Buffer.from(chunk).toString('utf8');
      const clean = safe(text);
      return write(clean === text ? chunk : clean, ...rest);
    }
    return write(chunk, ...rest);
  };
  stream.write = guarded as Write;
};

/**
 * `stream` for a progress bar of this CLI's own: its cursor and line controls reach the terminal
 * (through the guard they were printed as text, `\u001b[0K\u001b[1Gplanning [██░░…`, over and
 * over in place of the bar), and known key values are still hidden. Only for text the CLI
 * composes from numbers and states, never a repository's strings. A real Writable, so the bar
 * library takes it as the stream it asks for; it answers isTTY and columns as `stream` does.
 */
export const barStream = (stream: NodeJS.WriteStream): NodeJS.WritableStream => {
  const out = new Writable({
    decodeStrings: false,
    write(chunk: unknown, _encoding, done) {
      const text = redactKnownValues(typeof chunk === 'string' ? chunk : String(chunk));
      const raw = unguarded.get(stream);
      if (raw === undefined) stream.write(text);
      else raw(text);
      done();
    },
  });
  Object.defineProperties(out, {
    isTTY: { get: () => stream.isTTY },
    columns: { get: () => stream.columns },
  });
  return out;
};

let installed = false;

/** Wraps stdout and stderr once per process. */
export const installRedactedOutput = (): void => {
  if (installed) return;
  installed = true;
  guardStream(process.stdout);
  guardStream(process.stderr);
};
