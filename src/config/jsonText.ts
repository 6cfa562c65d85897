/**
 * JSON text of a config file -> value, or an error with the offset, line and column of the
 * first fault. Node 20's JSON.parse messages often carry no position, so a small scanner
 * finds it; JSON.parse still builds the value once the scan passes.
 */
import * as E from 'fp-ts/lib/Either.js';

export interface JsonSyntaxError {
  readonly _tag: 'JsonSyntaxError';
  readonly offset: number;
  readonly line: number;
  readonly column: number;
  readonly reason: string;
}

class ScanError extends Error {
  constructor(
    readonly offset: number,
    readonly reason: string,
  ) {
    super(reason);
  }
}

const scan = (text: string): void => {
  let i = 0;
  const fail = (reason: string, at = i): never => {
    throw new ScanError(at, reason);
  };
  const ws = () => {
    while (i < text.length && ' \t\r\n'.includes(text.charAt(i))) i += 1;
  };
  const describe = (): string => (i >= text.length ? 'unexpected end of input' : `unexpected ${JSON.stringify(text[i])}`);
  const literal = (word: string) => {
    if (text.startsWith(word, i)) i += word.length;
    else fail(describe());
  };
  const str = () => {
    i += 1; // opening quote
    for (;;) {
      if (i >= text.length) fail('unterminated string');
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        i += 1;
        return;
      }
      if (c < 0x20) fail('control character in string');
      if (c === 0x5c) {
        const next = text[i + 1];
        if (next === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) fail('bad \\u escape');
          i += 6;
        } else if (next !== undefined && '"\\/bfnrt'.includes(next)) i += 2;
        else fail('bad escape');
      } else i += 1;
    }
  };
  const num = () => {
    const m = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(text.slice(i));
    if (m === null) fail(describe());
    else i += m[0].length;
  };
  const value = (depth: number): void => {
    if (depth > 256) fail('nested too deeply');
    ws();
    const c = text[i];
    if (c === '{') {
      i += 1;
      ws();
      if (text[i] === '}') {
        i += 1;
        return;
      }
      for (;;) {
        ws();
        if (text[i] !== '"') fail(text[i] === '}' ? 'trailing comma' : `expected a property name, ${describe()}`);
        str();
        ws();
        if (text[i] !== ':') fail(`expected ':', ${describe()}`);
        i += 1;
        value(depth + 1);
        ws();
        if (text[i] === ',') {
          i += 1;
          continue;
        }
        if (text[i] === '}') {
          i += 1;
          return;
        }
        fail(`expected ',' or '}', ${describe()}`);
      }
    }
    if (c === '[') {
      i += 1;
      ws();
      if (text[i] === ']') {
        i += 1;
        return;
      }
      for (;;) {
        ws();
        if (text[i] === ']') fail('trailing comma');
        value(depth + 1);
        ws();
        if (text[i] === ',') {
          i += 1;
          continue;
        }
        if (text[i] === ']') {
          i += 1;
          return;
        }
        fail(`expected ',' or ']', ${describe()}`);
      }
    }
    if (c === '"') return str();
    if (c === 't') return literal('true');
    if (c === 'f') return literal('false');
    if (c === 'n') return literal('null');
    if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) return num();
    fail(describe());
  };
  value(0);
  ws();
  if (i < text.length) fail(`unexpected ${JSON.stringify(text[i])} after the value`);
};

/** 1-based line and column of a character offset. */
const lineColumn = (text: string, offset: number): { line: number; column: number } => {
  const before = text.slice(0, offset);
  const lines = before.split('\n');
  return { line: lines.length, column: (lines[lines.length - 1]?.length ?? 0) + 1 };
};

/** Parses JSON text (a leading byte-order mark is allowed); never throws. */
export const parseJsonText = (text: string): E.Either<JsonSyntaxError, unknown> => {
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const shift = text.length - body.length;
  try {
    scan(body);
    return E.right(JSON.parse(body));
  } catch (error) {
    const offset = (error instanceof ScanError ? error.offset : 0) + shift;
    const reason = error instanceof ScanError ? error.reason : 'invalid JSON';
    return E.left({ _tag: 'JsonSyntaxError', offset, ...lineColumn(text, offset), reason });
  }
};
