/**
 * Every byte the CLI prints passes the redactor's known-value pass: whatever a command, a
 * library or an uncaught error writes, the API key the process resolved never reaches the
 * terminal or a log that captures it. Shape-based redaction stays with the messages
 * themselves (a page of HTML or a diagram must not be rewritten by patterns). Terminal controls
 * other than line breaks and tabs are written out as `\uNNNN` (`terminalText`): the CLI prints
 * none of its own, and a repository's config values and field names reach the doctor's lines.
 */
import { redactKnownValues } from '../../config/redact.js';
import { terminalText } from '../../config/memoryText.js';

const safe = (text: string): string => terminalText(redactKnownValues(text));

type Write = typeof process.stdout.write;

const guard = (stream: NodeJS.WriteStream): void => {
  const write = stream.write.bind(stream) as (chunk: unknown, ...rest: unknown[]) => boolean;
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

let installed = false;

/** Wraps stdout and stderr once per process. */
export const installRedactedOutput = (): void => {
  if (installed) return;
  installed = true;
  guard(process.stdout);
  guard(process.stderr);
};
