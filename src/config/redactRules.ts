/**
 * The secret shapes `redact` recognises. Patterns favour recall over precision: a redacted
 * benign token costs a little readability, a leaked key costs an incident.
 *
 * Provider rules follow the prefixes published by the providers and collected by gitleaks'
 * rule set (read as a reference; no rule text is copied). A provider key is matched after
 * any non-alphanumeric character, not at a `\b`: `TOOL_AKIA...` has no word boundary before
 * `AKIA`.
 */

export const REDACTED = '[REDACTED]';

/**
 * Every rule runs in time linear in the text (an `agent_end` hook redacts whatever a command
 * printed, synchronously). JavaScript's regex engine backtracks, so each rule keeps to shapes
 * that cannot make it rescan: a run that may fail after it either starts only where the run
 * starts (a look-behind on its own class) or is taken whole (`(?=(run))\N`, an atomic group:
 * the engine never gives characters back to try another split), and no two quantifiers over
 * the same characters touch. `test/security/redactionTime.test.ts` holds every rule to a time
 * per KB over adversarial inputs; `bench/redaction.bench.ts` measures the throughput.
 */
/** A rule is a regex and its replacement, or a scanner where no regex shape is linear. */
export type Rule = (
  | { readonly name: string; readonly pattern: RegExp; readonly replace: string | ((match: string, ...args: unknown[]) => string) }
  | { readonly name: string; readonly scan: (text: string) => string }
) & { readonly anchors?: Anchors };

/**
 * Literals without one of which a rule cannot change a text: the rule is skipped when the text
 * holds none of them (`ignoreCase`: in any ASCII case, as the regex's `i` flag matches them).
 * A prefilter only: it never decides what is hidden, and `test/config/redactAnchors.test.ts`
 * holds every rule's result with it to the result without it.
 */
export interface Anchors {
  readonly any: readonly string[];
  readonly ignoreCase: boolean;
}

// Not preceded by a letter or digit: a key glued to `_` or `-` is still found.
const START = '(?<![A-Za-z0-9])';
const END = '(?![A-Za-z0-9])';

// Words that make the value after them a secret: `password: x`, `API_KEY=x`, `"token": "x"`.
// A name must end in the word (or continue after `_`, `.`, `-`): `maxTokens` is a count.
const SECRET_WORD = String.raw`(?:api[_ -]?key|apikey|access[_ -]?key|secret[_ -]?key|account[_ -]?key|shared[_-]?access[_-]?key|auth[_-]?token|access[_-]?token|refresh[_-]?token|token|secret|password|passphrase|passwd|sshpass|pwd|credentials?|private[_ -]?key|client[_-]?secret)`;
// A value already redacted is left alone. A header's value is taken from its first non-space
// character (\S), so the spaces before it cannot be given back to let it start at ` [REDACTED]`.
const FRESH = String.raw`(?!\[REDACTED\])`;

/** `run` matched whole, as group `group`: an atomic group, so a failure after it never re-splits the run. */
const whole = (run: string, group: number): string => `(?=(${run}))\\${group}`;
// A URL scheme, read only from where its run starts (`a.b.a.b…` is one candidate, not one per dot).
const SCHEME = String.raw`(?<![a-z0-9+.-])([a-z][a-z0-9+.-]*:\/\/)`;
// What sets a value: `=`, `:`, and PHP's and Ruby's `=>` (`'password' => 'x'`), whose `>` is never the value.
// Go's `:=` is one operator: read as `:`, its `=` was taken for the value (`token := "x"` kept x).
const ASSIGN = String.raw`(?:=>|:=|=(?!>)|:(?![=>]))`;
// A character of a secret-looking name; the one space allowed is the one of a key named in two
// words (`api key`, `secret key`, `access key`, `private key`, `account key`: the AWS console's
// "Secret access key" and a person's "my secret key is …" were kept whole).
const KEY_FIRST_WORD = '(?:api|secret|access|private|account)';
const NAME_CHAR = String.raw`(?:[A-Za-z0-9_.-]|(?<=${KEY_FIRST_WORD}) (?=key))`;

// An unquoted value after a secret name: up to a space or a quote, and through a `;`, `,`, `)`,
// `}` or `]` glued to more of it (`DB_PASSWORD=hunter2;Tr0ub4dor` kept `;Tr0ub4dor`,
// `TOKEN=ab,cd` `,cd`, `token: (abc)def` `)def`): a person's secret holds them, and what ends a
// value is the space or the end after them. But not a `;` or `,` that starts another setting
// (`Password=x;User Id=y`, `token=t,user=u`, `{token:t,user:u}`), a `;` that ends a statement
// (`password = f(); next()`: a space follows), nor a closer before `.` (`f(token=t).then()`: code
// goes on). Each `;` and `,` looks ahead to the next `=` (`,`: or `:`) or character outside a name.
const VALUE_CHAR = String.raw`[^\s"',;)}\]]`;
const ASSIGNED_VALUE = String.raw`(?:${VALUE_CHAR}|;(?=${VALUE_CHAR})(?![A-Za-z0-9_. \t-]*=)|,(?=${VALUE_CHAR})(?![A-Za-z0-9_. \t-]*[=:])|[)}\]]+(?=${VALUE_CHAR})(?![.:\u0060\\]))+`;

const QUERY_START = /[?&]/g;
const QUERY_NAME_END = /[=&#]|\s/g;
const QUERY_VALUE_END = /[&#]|\s/g;
const QUERY_SECRET_NAME = new RegExp(String.raw`${SECRET_WORD}|pass|sig|signature|key`, 'i');

/** Where the run that `end` stops starts at `from` ends (the text's end when nothing stops it). */
const runEnd = (text: string, from: number, end: RegExp): number => {
  end.lastIndex = from;
  return end.exec(text)?.index ?? text.length;
};

/**
 * `?access_token=x`, `&sig=x`, `?api key=x`: the value of a query parameter whose name holds a
 * secret word. A name runs from a `?` or `&` to `=` (a later `?` inside it does not start
 * another: the longer name holds the shorter), and may hold the space of `api key`. A value is
 * searched for parameters of its own (`?next=/x?token=y`). Each character is read once or twice.
 */
const hideQuerySecrets = (text: string): string => {
  let out = '';
  let copied = 0;
  let at = 0;
  while (at < text.length) {
    QUERY_START.lastIndex = at;
    const start = QUERY_START.exec(text);
    if (start === null) break;
    let nameEnd = runEnd(text, start.index + 1, QUERY_NAME_END);
    while (text.charAt(nameEnd) === ' ' && /api$/i.test(text.slice(Math.max(0, nameEnd - 3), nameEnd)) && /^key/i.test(text.slice(nameEnd + 1, nameEnd + 4))) {
      nameEnd = runEnd(text, nameEnd + 1, QUERY_NAME_END);
    }
    if (text.charAt(nameEnd) !== '=') {
      at = Math.max(nameEnd, start.index + 1);
      continue;
    }
    const valueStart = nameEnd + 1;
    // The value's end is looked for only under a secret name: `=?=?=?…` would rescan it from each `?`.
    const secret = QUERY_SECRET_NAME.test(text.slice(start.index + 1, nameEnd)) && !text.startsWith(REDACTED, valueStart);
    const valueEnd = secret ? runEnd(text, valueStart, QUERY_VALUE_END) : valueStart;
    if (valueEnd > valueStart) {
      out += `${text.slice(copied, valueStart)}${REDACTED}`;
      copied = valueEnd;
      at = valueEnd;
    } else {
      at = valueStart;
    }
  }
  return copied === 0 ? text : `${out}${text.slice(copied)}`;
};

const CLOSING = new Set('.,;!?)');

// A "value" made only of a sentence's punctuation is no value: "the staging db password is:" sent
// alone (its password in the next message) showed as "…is[REDACTED]", the colon taken for it.
const PROSE_NO_VALUE = String.raw`(?![:=.?!,;\u2026\u2013\u2014-]+(?:[\s"'\u2018\u2019\u201c\u201d]|$))`;

// A word of a password said in prose, and the words that end one: they start a new clause (or
// are a secret's name again), and a passphrase in words holds none of them.
const PROSE_WORD = String.raw`[^\s"'\u2018\u2019\u201c\u201d]+`;
const PROSE_STOP = String.raw`(?:and|or|but|so|then|for|to|into|in|on|at|by|with|from|because|since|when|while|if|unless|which|that|who|where|please|ask|see|use|is|was|are|were|be|it|its|i|you|we|they|he|she|the|a|an|this|these|those|my|your|our|their|his|her|password|passphrase|\[REDACTED\])`;
// A first word that is one of them starts a sentence, not a passphrase: it alone is hidden.
const PROSE_STOP_WORD = new RegExp(`^${PROSE_STOP}$`, 'i');

/**
 * The value of "password is X": a quoted value whole; else the words the rule took (up to eight,
 * stopped by a sentence's punctuation or a word that starts a new clause), less the punctuation
 * that closes the sentence (`hunter2.` hides `hunter2`); a value a quote closes keeps none of its
 * own. Trailing punctuation is counted from the end by hand: `/[.,;!?)]*$/` would rescan a run of
 * dots from each dot.
 */
const hideProseValue = (match: string, args: readonly unknown[]): string => {
  const [prefix, openQuoted, quoted, open, word, more, closeQuote] = args;
  if (typeof prefix !== 'string') return match;
  if (typeof quoted === 'string') return `${prefix}${typeof openQuoted === 'string' ? openQuoted : ''}${REDACTED}`;
  if (typeof word !== 'string') return match;
  const value = word.length <= 10 && PROSE_STOP_WORD.test(word) ? word : `${word}${typeof more === 'string' ? more : ''}`;
  const after = value === word && typeof more === 'string' ? more : '';
  const opened = typeof open === 'string' ? open : '';
  if (typeof closeQuote === 'string' && closeQuote !== '' && after === '') return `${prefix}${opened}${REDACTED}`;
  let kept = value.length;
  while (kept > 1 && CLOSING.has(value.charAt(kept - 1))) kept -= 1;
  return `${prefix}${opened}${REDACTED}${value.slice(kept)}${after}`;
};

/**
 * A line (after its indentation) that goes on a hidden secret: one unbroken run of a key's
 * alphabet, up to the line's end, that looks random (a digit, or mixed case over 8
 * characters, or 16 characters or more). A word on its own line ("Done", "return") or a path
 * does not.
 */
// `=` only at the end, as base64 pads: `PORT=8080` on the next line of an .env file is an assignment.
const CONTINUATION_RUN = /[ \t]*([A-Za-z0-9+/_.~-]+={0,2})/y;
const looksRandom = (run: string): boolean =>
  run.length >= 4 &&
  // Base64 has `/` and a JWT `.`, never both: a run with both is a path (`src/config/redact.ts`).
  !(run.includes('/') && run.includes('.')) &&
  (/\d/.test(run) || run.length >= 16 || (run.length >= 8 && /[a-z]/.test(run) && /[A-Z]/.test(run)));

/** How long the line break at `at` is: a real one (`\n`, `\r\n`) or one escaped in JSON text (`\\n`, `\\r\\n`); 0 when none is there. */
const lineBreakAt = (text: string, at: number): number => {
  for (const brk of ['\n', '\r\n', '\\n', '\\r\\n']) if (text.startsWith(brk, at)) return brk.length;
  return 0;
};

/** True when the run ending at `at` ends its line: the text's end, a line break (real or escaped) or a closing quote. */
const endsLine = (text: string, at: number): boolean => at === text.length || lineBreakAt(text, at) > 0 || text.charAt(at) === '\r' || text.startsWith('\\r', at) || text.charAt(at) === '"' || text.startsWith('\\"', at) || text.charAt(at) === "'";

/**
 * Every `[REDACTED]` that ends its line takes the lines after it that go on the secret (see
 * `CONTINUATION_RUN`), up to the first that does not: they are removed, so the secret is one
 * `[REDACTED]` again. Each line is looked at once, by the `[REDACTED]` that ends the line
 * before it. Idempotent: the line that stopped it is the line after it still.
 */
const hideContinuations = (text: string): string => {
  let out = '';
  let copied = 0;
  let from = 0;
  for (;;) {
    const at = text.indexOf(REDACTED, from);
    if (at === -1) break;
    const end = at + REDACTED.length;
    let cut = end;
    for (;;) {
      const brk = lineBreakAt(text, cut);
      if (brk === 0) break;
      CONTINUATION_RUN.lastIndex = cut + brk;
      const run = CONTINUATION_RUN.exec(text);
      const runEndAt = CONTINUATION_RUN.lastIndex;
      if (run === null || !looksRandom(run[1] ?? '') || !endsLine(text, runEndAt)) break;
      cut = runEndAt;
    }
    if (cut > end) {
      out += text.slice(copied, end);
      copied = cut;
    }
    from = Math.max(end, cut);
  }
  return copied === 0 ? text : `${out}${text.slice(copied)}`;
};

/** A character of a JWT segment (base64url), by character code. */
const isTokenChar = (text: string, at: number): boolean => {
  const c = text.charCodeAt(at);
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 45;
};

/** Past the spaces or tabs at `at`. */
const pastBlanks = (text: string, at: number): number => {
  let i = at;
  while (text.charAt(i) === ' ' || text.charAt(i) === '\t') i += 1;
  return i;
};

/**
 * A JWT segment from `at`: its characters and, with `wrapped`, a line break (real or escaped in
 * JSON) and indentation with more of them after it (a terminal wrapped the segment). Returns its
 * end and how many characters of the segment it holds.
 */
const readSegment = (text: string, at: number, wrapped: boolean): { readonly end: number; readonly chars: number } => {
  let i = at;
  let chars = 0;
  for (;;) {
    while (i < text.length && isTokenChar(text, i)) {
      i += 1;
      chars += 1;
    }
    if (!wrapped || chars === 0) return { end: i, chars };
    const brk = lineBreakAt(text, i);
    if (brk === 0) return { end: i, chars };
    const next = pastBlanks(text, i + brk);
    if (!isTokenChar(text, next)) return { end: i, chars };
    i = next;
  }
};

/** Past the dot between two JWT segments at `at`, a line break (and indentation) allowed on either side of it; undefined when no dot is there. */
const pastJwtDot = (text: string, at: number): number | undefined => {
  let i = pastBlanks(text, at);
  i = pastBlanks(text, i + lineBreakAt(text, i));
  if (text.charAt(i) !== '.') return undefined;
  i = pastBlanks(text, i + 1);
  return pastBlanks(text, i + lineBreakAt(text, i));
};

/**
 * JWTs (`eyJ…` header, `.eyJ…` payload, `.` signature; header and payload 7 characters or more,
 * the signature 4), the `eyJ` not glued to a letter or digit: on one line, broken over lines at
 * its dots (`….` then the next part on the next line, or the dot starting it), or with its header
 * or payload wrapped at a terminal's width. A signature wrapped onto the next line is the
 * continuation rule's (last). Each `eyJ` that fails starts the next search past what it read, so a
 * character is read at most twice (`eyJa` on thousands of lines reads each once).
 */
const hideJwts = (text: string): string => {
  let out = '';
  let copied = 0;
  let from = 0;
  for (;;) {
    const at = text.indexOf('eyJ', from);
    if (at === -1) break;
    if (at > 0 && /[A-Za-z0-9]/.test(text.charAt(at - 1))) {
      from = at + 3;
      continue;
    }
    const head = readSegment(text, at, true);
    const payloadAt = head.chars >= 7 ? pastJwtDot(text, head.end) : undefined;
    if (payloadAt === undefined || !text.startsWith('eyJ', payloadAt)) {
      from = Math.max(head.end, at + 3);
      continue;
    }
    const payload = readSegment(text, payloadAt, true);
    const signatureAt = payload.chars >= 7 ? pastJwtDot(text, payload.end) : undefined;
    const signature = signatureAt === undefined ? undefined : readSegment(text, signatureAt, false);
    if (signature === undefined || signature.chars < 4) {
      from = payloadAt;
      continue;
    }
    out += `${text.slice(copied, at)}${REDACTED}`;
    copied = signature.end;
    from = signature.end;
  }
  return copied === 0 ? text : `${out}${text.slice(copied)}`;
};

// A Terraform (HCL) variable block: `variable "db_password" {`, the name quoted or bare.
const TF_VARIABLE = /\bvariable[ \t]+(?:"([^"\n]*)"|([A-Za-z_][A-Za-z0-9_-]*))\s*\{/g;
const TF_SECRET_NAME = new RegExp(String.raw`(?:${SECRET_WORD}|[_.-]pass)$`, 'i');
const TF_DEFAULT = /default[ \t]*=(?!=)[ \t]*/y;
const TF_HEREDOC = /<<-?([A-Za-z_][A-Za-z0-9_]*)[ \t]*\r?\n/y;

/** Past a quoted HCL string opening at `at` (its closing quote, or the line's end when unclosed). */
const pastHclString = (text: string, at: number): number => {
  let i = at + 1;
  while (i < text.length) {
    const c = text.charAt(i);
    if (c === '\\') i += 2;
    else if (c === '"') return i + 1;
    else if (c === '\n') return i;
    else i += 1;
  }
  return text.length;
};

/** Past the bracketed HCL value (`{…}` or `[…]`) opening at `at`: its closing bracket, or the text's end. */
const pastHclBrackets = (text: string, at: number): number => {
  let depth = 0;
  let i = at;
  while (i < text.length) {
    const c = text.charAt(i);
    if (c === '"') {
      i = pastHclString(text, i);
      continue;
    }
    if (c === '{' || c === '[') depth += 1;
    else if (c === '}' || c === ']') {
      depth -= 1;
      if (depth === 0) return i + 1;
    }
    i += 1;
  }
  return text.length;
};

/**
 * The span of a `default` value at `at`: `[start, end)` of what is hidden (a quoted string's
 * inside, a heredoc's body, a bracketed value whole, a bare word; `null` is no value) and where
 * reading goes on.
 */
const hclDefaultValue = (text: string, at: number): { readonly hide?: readonly [number, number]; readonly next: number } => {
  const c = text.charAt(at);
  if (c === '"') {
    const end = pastHclString(text, at);
    const close = text.charAt(end - 1) === '"' && end - 1 > at ? end - 1 : end;
    return { hide: [at + 1, close], next: end };
  }
  TF_HEREDOC.lastIndex = at;
  const heredoc = TF_HEREDOC.exec(text);
  if (heredoc !== null) {
    const marker = heredoc[1] ?? '';
    const body = TF_HEREDOC.lastIndex;
    // The body ends at the line that is the marker (indented with `<<-`).
    let line = body;
    while (line < text.length) {
      const lineEnd = text.indexOf('\n', line);
      const stop = lineEnd === -1 ? text.length : lineEnd;
      // The line break before the marker stays: the marker must start its line again.
      if (text.slice(line, stop).trim() === marker) return { hide: [body, Math.max(body, line - (text.charAt(line - 2) === '\r' ? 2 : 1))], next: stop };
      line = stop + 1;
    }
    return { hide: [body, text.length], next: text.length };
  }
  if (c === '{' || c === '[') {
    const end = pastHclBrackets(text, at);
    return { hide: [at, end], next: end };
  }
  let end = at;
  while (end < text.length && !/[\s,}#]/.test(text.charAt(end))) end += 1;
  const word = text.slice(at, end);
  return word === '' || word === 'null' || word.startsWith(REDACTED) ? { next: Math.max(end, at) } : { hide: [at, end], next: end };
};

/**
 * Terraform's `variable "db_password" { … default = "x" … }`: the default of a variable named
 * like a secret, lines apart from its name. The block is read once, to its closing brace (strings
 * and comments skipped, nested blocks counted), and every `default =` in it is hidden; the next
 * variable is looked for after it, so nothing is read twice.
 */
const hideTerraformDefaults = (text: string): string => {
  let out = '';
  let copied = 0;
  TF_VARIABLE.lastIndex = 0;
  for (let match = TF_VARIABLE.exec(text); match !== null; match = TF_VARIABLE.exec(text)) {
    const name = match[1] ?? match[2] ?? '';
    if (!TF_SECRET_NAME.test(name)) continue;
    let depth = 1;
    let i = TF_VARIABLE.lastIndex;
    while (i < text.length && depth > 0) {
      const c = text.charAt(i);
      if (c === '"') {
        i = pastHclString(text, i);
      } else if (c === '#' || text.startsWith('//', i)) {
        const lineEnd = text.indexOf('\n', i);
        i = lineEnd === -1 ? text.length : lineEnd;
      } else if (text.startsWith('/*', i)) {
        const close = text.indexOf('*/', i + 2);
        i = close === -1 ? text.length : close + 2;
      } else if (c === '{') {
        depth += 1;
        i += 1;
      } else if (c === '}') {
        depth -= 1;
        i += 1;
      } else if (c === 'd' && !/[A-Za-z0-9_-]/.test(text.charAt(i - 1)) && ((TF_DEFAULT.lastIndex = i), TF_DEFAULT.test(text))) {
        const value = hclDefaultValue(text, TF_DEFAULT.lastIndex);
        const hide = value.hide;
        if (hide !== undefined && hide[1] > hide[0] && !text.startsWith(REDACTED, hide[0])) {
          out += `${text.slice(copied, hide[0])}${REDACTED}`;
          copied = hide[1];
        }
        i = Math.max(value.next, i + 1);
      } else {
        i += 1;
      }
    }
    TF_VARIABLE.lastIndex = Math.max(TF_VARIABLE.lastIndex, i);
  }
  return copied === 0 ? text : `${out}${text.slice(copied)}`;
};

/** The base64 and base64url alphabet (the decoder takes both), by character code. */
const ENCODED_CHARS = new Uint8Array(128);
for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_-') ENCODED_CHARS[c.charCodeAt(0)] = 1;
const isEncodedChar = (text: string, at: number): boolean => {
  const code = text.charCodeAt(at);
  return code < 128 && ENCODED_CHARS[code] === 1;
};
/** The shortest run tried: 12 bytes of text. */
const MIN_ENCODED_RUN = 16;
// Control characters other than tab and line breaks, and the replacement character of bytes that are not UTF-8.
// eslint-disable-next-line no-control-regex -- control characters are what is counted
const NOT_TEXT = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f\ufffd]/g;

/** The text `run` encodes, when it is base64 of text (not of bytes); undefined otherwise. */
const decodedText = (run: string): string | undefined => {
  const text = Buffer.from(run, 'base64').toString('utf8');
  if (text.length < 8) return undefined;
  const bad = text.match(NOT_TEXT)?.length ?? 0;
  return bad * 20 > text.length ? undefined : text;
};

// Hex of 16 bytes or more, maybe after `0x`; checked only on a run already found.
const HEX_RUN = /^(?:0x)?((?:[0-9a-fA-F]{2}){16,})$/;

/** The text a run of hex digits encodes, when it is text; undefined otherwise. */
const hexText = (run: string): string | undefined => {
  if (run.length < 32) return undefined;
  const digits = HEX_RUN.exec(run)?.[1];
  if (digits === undefined) return undefined;
  const text = Buffer.from(digits, 'hex').toString('utf8');
  const bad = text.match(NOT_TEXT)?.length ?? 0;
  return bad * 20 > text.length ? undefined : text;
};

/**
 * Each run of the base64 alphabet (16 characters or more, with its `=` padding) that decodes
 * to text holding a secret shape (every rule before this one) is hidden whole. Every text is
 * looked at (no literal marks base64), so the scan reads one character in 16 where no run is:
 * a run of 16 covers one of them; around one that is in the alphabet, the run is read once.
 */
const hideEncodedSecrets = (text: string): string => {
  let out = '';
  let copied = 0;
  // Every run starting before `limit` has been dealt with; the character before it is not in the alphabet.
  let limit = 0;
  while (limit + MIN_ENCODED_RUN - 1 < text.length) {
    const probe = limit + MIN_ENCODED_RUN - 1;
    if (!isEncodedChar(text, probe)) {
      limit = probe + 1;
      continue;
    }
    let start = probe;
    while (start > limit && isEncodedChar(text, start - 1)) start -= 1;
    let end = probe + 1;
    while (end < text.length && isEncodedChar(text, end)) end += 1;
    let padded = end;
    while (padded < text.length && padded < end + 2 && text.charAt(padded) === '=') padded += 1;
    if (end - start >= MIN_ENCODED_RUN) {
      const run = text.slice(start, padded);
      // Hex is in the base64 alphabet too: a run is tried as both (`echo -n sk_live_… | xxd -p`).
      const decoded = [decodedText(run), hexText(run)].find((d) => d !== undefined && applyRules(shapeRules, d) !== d);
      if (decoded !== undefined) {
        out += `${text.slice(copied, start)}${REDACTED}`;
        copied = padded;
      }
    }
    limit = Math.max(end, padded) + 1;
  }
  return copied === 0 ? text : `${out}${text.slice(copied)}`;
};

/** How a tool takes a password by a short flag: glued (`mysql -pX`) or as the next word (`redis-cli -a X`). */
type ToolFlags = { readonly glued?: string; readonly next?: readonly string[] };
const MYSQL: ToolFlags = { glued: '-p' };
const TOOL_FLAGS: ReadonlyMap<string, ToolFlags> = new Map([
  ['mysql', MYSQL], ['mysqldump', MYSQL], ['mysqladmin', MYSQL], ['mysqlimport', MYSQL], ['mysqlshow', MYSQL], ['mysqlcheck', MYSQL], ['mariadb', MYSQL], ['mariadb-dump', MYSQL],
  ['redis-cli', { next: ['-a'] }],
  ['openssl', { next: ['-k'] }],
]);
// `docker login -p X` (and podman's, helm registry's): the flag is a password only after `login`.
const LOGIN_TOOLS = new Set(['docker', 'podman', 'helm', 'buildah', 'skopeo']);
const LOGIN_FLAGS: ToolFlags = { next: ['-p'] };
// Words that end a command: the next word may be another tool's.
const COMMAND_ENDS = new Set([';', '&&', '||', '|', '&']);
const WORD = /\n|[^\s]+/g;

/**
 * Where a value starting at `at` ends: a quoted one at its closing quote on the line (`-p"two
 * words"`: the second word was kept), else at the word's end `wordEnd`, less a `;` that ends the
 * command. An unclosed quote runs to the word's end.
 */
const flagValueEnd = (text: string, at: number, wordEnd: number): number => {
  const quote = text.charAt(at);
  if (quote === '"' || quote === "'") {
    // The next same quote is at most the next such value's: each stretch is read once or twice.
    const close = text.indexOf(quote, at + 1);
    if (close !== -1 && !text.slice(at, close).includes('\n')) return close + 1;
  }
  return text.charAt(wordEnd - 1) === ';' ? wordEnd - 1 : wordEnd;
};

/**
 * `htpasswd -b file user PASSWORD` and `htpasswd -nb user PASSWORD`: with `-b` (batch) the
 * password is a positional word, the third (the second with `-n`, which writes no file). `-C`
 * and `-r` take a value of their own. Flags are read only before the first positional word.
 */
interface Htpasswd {
  batch: boolean;
  noFile: boolean;
  positionals: number;
  skipNext: boolean;
}

/**
 * Passwords given by a short flag of a tool that takes one so: `mysql -pS3cret` (glued),
 * `redis-cli -a S3cret`, `docker login -p S3cret`, `openssl enc -k S3cret`, and `htpasswd`'s
 * positional one. `-p` alone means other things (`mkdir -p`, `ssh -p 22`), so the tool must be
 * known: the words of each line are read once, in order, the command they belong to kept as they
 * go (a regex reading back along the line to the tool's name would be quadratic).
 */
const hideToolPasswordFlags = (text: string): string => {
  let out = '';
  let copied = 0;
  let flags: ToolFlags | undefined;
  let loginTool = false;
  let hideNext = false;
  let htpasswd: Htpasswd | undefined;
  const hide = (from: number, wordEnd: number): void => {
    const end = flagValueEnd(text, from, wordEnd);
    out += `${text.slice(copied, from)}${REDACTED}`;
    copied = end;
    WORD.lastIndex = Math.max(WORD.lastIndex, end);
  };
  WORD.lastIndex = 0;
  for (let match = WORD.exec(text); match !== null; match = WORD.exec(text)) {
    const word = match[0];
    if (word === '\n' || COMMAND_ENDS.has(word)) {
      flags = undefined;
      loginTool = false;
      hideNext = false;
      htpasswd = undefined;
      continue;
    }
    const at = match.index;
    const wordEnd = at + word.length;
    if (hideNext) {
      hideNext = false;
      if (!word.startsWith(REDACTED) && !word.startsWith('-') && word !== ';') hide(at, wordEnd);
      if (word.endsWith(';')) flags = undefined;
      continue;
    }
    if (htpasswd !== undefined) {
      const h = htpasswd;
      if (h.skipNext) {
        h.skipNext = false;
      } else if (h.positionals === 0 && word.length > 1 && word.startsWith('-')) {
        h.batch ||= /^-[A-Za-z]*b/.test(word);
        h.noFile ||= /^-[A-Za-z]*n/.test(word);
        h.skipNext = word === '-C' || word === '-r';
      } else {
        h.positionals += 1;
        if (h.batch && h.positionals === (h.noFile ? 2 : 3) && !word.startsWith(REDACTED)) hide(at, wordEnd);
      }
      if (word.endsWith(';')) htpasswd = undefined;
      continue;
    }
    const name = word.slice(word.lastIndexOf('/') + 1).toLowerCase();
    if (name === 'htpasswd') {
      flags = undefined;
      loginTool = false;
      htpasswd = { batch: false, noFile: false, positionals: 0, skipNext: false };
      continue;
    }
    const tool = TOOL_FLAGS.get(name);
    if (tool !== undefined) {
      flags = tool;
      loginTool = false;
      continue;
    }
    if (LOGIN_TOOLS.has(name)) {
      flags = undefined;
      loginTool = true;
      continue;
    }
    if (loginTool && word === 'login') {
      flags = LOGIN_FLAGS;
      continue;
    }
    if (flags === undefined) continue;
    if (flags.next?.includes(word) === true) {
      hideNext = true;
      continue;
    }
    const glued = flags.glued;
    const valueAt = at + (glued?.length ?? 0);
    if (glued !== undefined && word.startsWith(glued) && flagValueEnd(text, valueAt, wordEnd) > valueAt && !word.startsWith(REDACTED, glued.length)) hide(valueAt, wordEnd);
    // A command ends with a word that ends in `;` (`mysql -pX db;`).
    if (word.endsWith(';')) flags = undefined;
  }
  return copied === 0 ? text : `${out}${text.slice(copied)}`;
};

const anyCase = (...any: string[]): Anchors => ({ any, ignoreCase: true });
const exact = (...any: string[]): Anchors => ({ any, ignoreCase: false });
/** Every secret word of `SECRET_WORD` holds one of these (and `[_.-]pass` holds `pass`). */
const SECRET_ANCHORS = anyCase('key', 'token', 'secret', 'pass', 'pwd', 'credential');

/**
 * `n` characters of `cls`, a line break allowed between two of them: a key of fixed length that a
 * terminal wrapped (`AKIAIOSFODNN7EXA` then `MPLE`) is still its shape. The count is fixed, so
 * nothing past the key is taken.
 */
const wrappable = (cls: string, n: number): string => String.raw`(?:(?:\r?\n)?${cls}){${n}}`;

const provider = (name: string, body: string, anchors: Anchors): Rule => ({ name, pattern: new RegExp(`${START}${body}`, 'g'), replace: REDACTED, anchors });

// Round 13, passwords in other languages: the copulas that say "is" (`ist`, `est`, `es`, `é`, `è`,
// `är`, `jest`, `это`…), each a whole word.
const FOREIGN_COPULA = String.raw`(?:ist|est|es|era|war|était|é|è|er|är|on|je|jest|wynosi|olarak|это|là)(?![A-Za-z\u00C0-\u024F\u0400-\u04FF])`;
// The value after them: not a value already hidden, not punctuation alone, not an article or a
// negation (`le mot de passe est le nom…`, `Das Passwort ist nicht…`); quoted (Latin, guillemets,
// CJK brackets) to its closing quote, else one word up to a space, a quote or CJK punctuation.
const FOREIGN_VALUE =
  String.raw`${FRESH}${PROSE_NO_VALUE}(?!(?:le|la|les|un|une|de|du|des|el|los|las|lo|il|gli|der|die|das|den|dem|ein|eine|einen|mein|meine|dein|sein|o|a|os|as|um|uma|meu|minha|het|een|mijn|nicht|pas|non|not|no|nie|ne|не|это|в|на)(?![A-Za-z\u00C0-\u024F\u0400-\u04FF]))` +
  String.raw`(?:(["'\u00AB\u201C\u201E\u300C\u300E])${FRESH}([^"'\u00BB\u201D\u300D\u300F\r\n]{1,200})(?=["'\u00BB\u201D\u300D\u300F])|${whole(String.raw`[^\s"'\u00AB\u201C\u201E\u300C\u300E\uFF0C\u3002\u3001\uFF1B\uFF01\uFF1F\uFF09\u300D\u300F,;]+`, 4)})`;

/** `FOREIGN_VALUE`'s value hidden: a quoted one inside its quotes, a word less the punctuation that closes its sentence. */
const hideForeignValue = (match: string, args: readonly unknown[]): string => {
  const [prefix, quote, quoted, word] = args;
  if (typeof prefix !== 'string') return match;
  if (typeof quoted === 'string') return `${prefix}${typeof quote === 'string' ? quote : ''}${REDACTED}`;
  if (typeof word !== 'string') return match;
  let kept = word.length;
  while (kept > 1 && CLOSING.has(word.charAt(kept - 1))) kept -= 1;
  return `${prefix}${REDACTED}${word.slice(kept)}`;
};

export const rules: readonly Rule[] = [
  // Any armoured private key: RSA, EC, OPENSSH, ENCRYPTED, PGP ... KEY BLOCK, its header in any
  // case and with four dashes or five (hand-edited and re-typed keys). An unterminated block is
  // hidden to the end of the text.
  {
    name: 'armoured private key',
    pattern: /-{4,5}BEGIN ([A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?)-{4,5}[\s\S]*?(?:-{4,5}END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-{4,5}|$)/gi,
    replace: REDACTED,
    anchors: anyCase('----begin '),
  },
  // A PuTTY key file (`.ppk`), from its first line to its MAC line (or the end of the text).
  {
    name: 'putty private key',
    pattern: /PuTTY-User-Key-File-\d+:[\s\S]*?(?:Private-(?:MAC|Hash):[ \t]*[0-9a-fA-F]*|$)/g,
    replace: REDACTED,
    anchors: exact('PuTTY-User-Key-File-'),
  },
  // Password hashes: a cracker recovers weak passwords from them. bcrypt (`$2b$12$` and 53
  // characters), crypt's MD5, SHA-256, SHA-512 and yescrypt (`$1$`, `$5$`, `$6$`, `$y$`), Apache's
  // `$apr1$` (htpasswd), argon2 (`$argon2id$v=19$m=…,t=…,p=…$salt$hash`), and Django's, which
  // prefix these (`argon2$argon2id$…`, `bcrypt_sha256$$2b$…`) or use `pbkdf2_sha256$iterations$salt$hash`.
  // A `$` glued to a letter or digit starts none (`abc$6$…`) but after Django's `argon2`. Each run
  // stops at `$`, which no run holds.
  {
    name: 'password hash',
    pattern: new RegExp(
      String.raw`(?<!(?<!argon)[A-Za-z0-9])\$(?:2[abxy]?\$\d{2}\$[./A-Za-z0-9]{53}|(?:1|5|6|apr1)\$(?:rounds=\d+\$)?[./A-Za-z0-9]{1,16}\$[./A-Za-z0-9]{22,}|y\$[./A-Za-z0-9]+\$[./A-Za-z0-9]+\$[./A-Za-z0-9]{22,}|argon2(?:id|i|d)\$v=\d+\$m=\d+,t=\d+,p=\d+\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]{16,}|s0\$[0-9a-fA-F]+\$[A-Za-z0-9+/]+={0,2}\$[A-Za-z0-9+/]{16,}={0,2}|7\$[./A-Za-z0-9]{11,}\$[./A-Za-z0-9]{22,}|scrypt\$ln=\d+,r=\d+,p=\d+\$[A-Za-z0-9+/.]+\$[A-Za-z0-9+/.]{16,}|pbkdf2(?:-sha(?:1|256|512))?\$\d+\$[./A-Za-z0-9+]+\$[./A-Za-z0-9+]{16,})|(?<![A-Za-z0-9_])pbkdf2_sha(?:1|256|512)\$\d+\$[A-Za-z0-9./+]+\$[A-Za-z0-9./+]{16,}={0,2}`,
      'g',
    ),
    replace: REDACTED,
    anchors: exact('$2', '$1$', '$5$', '$6$', '$y$', '$apr1$', '$argon2', 'pbkdf2_sha', '$s0$', '$7$', '$scrypt$', '$pbkdf2'),
  },
  // An LDAP password value: `{SSHA}`, `{SSHA512}`, `{SHA}`, `{SMD5}`, `{CRYPT}`, `{PBKDF2-SHA512}`,
  // `{ARGON2}` … then the hash (OpenLDAP's `userPassword`, 389-ds, slappasswd output). The scheme
  // is case-blind; the hash runs over base64, crypt and PBKDF2's characters, which hold no `}`.
  {
    name: 'ldap password hash',
    pattern: /\{(?:S?SHA(?:1|224|256|384|512)?|S?MD5|CRYPT|BCRYPT|ARGON2|PBKDF2(?:[_-]SHA(?:1|256|512))?|SSHA3?-?\d*|CLEARTEXT)\}[A-Za-z0-9+/.$=,:-]{4,}/gi,
    replace: REDACTED,
    anchors: anyCase('{ssha', '{sha', '{smd5', '{md5', '{crypt', '{bcrypt', '{argon2', '{pbkdf2', '{cleartext'),
  },
  // A whole header line: the scheme may be anything (Bearer, Basic, Token, a raw key).
  { name: 'authorization header', pattern: new RegExp(String.raw`\b((?:proxy-)?authorization\s*[:=]\s*)${FRESH}\S[^\r\n]*`, 'gi'), replace: `$1${REDACTED}`, anchors: anyCase('authorization') },
  { name: 'api key header', pattern: new RegExp(String.raw`\b(x-api-key\s*:\s*)${FRESH}\S[^\r\n]*`, 'gi'), replace: `$1${REDACTED}`, anchors: anyCase('x-api-key') },
  { name: 'cookie header', pattern: new RegExp(String.raw`\b((?:set-)?cookie\s*:\s*)${FRESH}\S[^\r\n]*`, 'gi'), replace: `$1${REDACTED}`, anchors: anyCase('cookie') },
  { name: 'bearer token', pattern: new RegExp(String.raw`\b(bearer\s+)${FRESH}[A-Za-z0-9._~+/=-]{8,}`, 'gi'), replace: `$1${REDACTED}`, anchors: anyCase('bearer') },
  { name: 'basic credentials', pattern: new RegExp(String.raw`\b(basic\s+)${FRESH}[A-Za-z0-9+/]{12,}={0,2}`, 'gi'), replace: `$1${REDACTED}`, anchors: anyCase('basic') },
  // `scheme://user:pass@host` and `scheme://longtoken@host`; a plain `git@` stays readable.
  // The user may be empty: `redis://:password@host`. A generated password may hold single
  // slashes (`postgres://app:wJal/K7MD/bPxR@db`); a port and a path (`host:8080/users/@ann`)
  // are not a password, and `//` ends the run (another URL starts there), so each character is
  // read from one scheme at most.
  // An `@` inside the password is part of it when another `@` follows before a space or slash
  // (`app:p@ss@db`); the look-ahead reads only to that next `@`, so each character is read twice.
  // A password with spaces (`postgres://app:two words here@db`) is the second form: a user, then
  // at most six words without `/` or `@`, the first not a port (`host:8080 is …`), then `@` and a
  // host. Word and space classes do not overlap, so a failing candidate is read once; one regex
  // for both, so the scheme is looked for once.
  {
    name: 'url credentials',
    pattern: new RegExp(
      String.raw`${SCHEME}(?:([^\s/@:[]*):(?![0-9]+/)((?:[^\s/@]|/(?!/)|@(?=[^\s/@]*@))*)@|${FRESH}[^\s/@:[]+:(?![0-9]+(?:[\s/]|$))${FRESH}[^\s/@]+(?: [^\s/@]+){1,5}@(?=[A-Za-z0-9[]))`,
      'gi',
    ),
    replace: `$1${REDACTED}@`,
    anchors: exact('://'),
  },
  { name: 'url token user', pattern: new RegExp(String.raw`${SCHEME}${FRESH}([A-Za-z0-9_-]{20,})@`, 'gi'), replace: `$1${REDACTED}@`, anchors: exact('://') },
  { name: 'url secret query parameter', scan: (text) => hideQuerySecrets(text), anchors: anyCase('key', 'token', 'secret', 'pass', 'pwd', 'credential', 'sig') },
  // JSON-ish `"apiKey": "value"` (before the bare key=value rule so the quotes survive).
  {
    name: 'json secret field',
    // The name is checked by look-ahead (the word, then a separator or the closing quote) and then taken whole.
    pattern: new RegExp(String.raw`("(?=[^"\n]*?(?:${SECRET_WORD}|[_.-]pass)(?:[_.-]|"))${whole(String.raw`[^"\n]*`, 2)}"\s*:\s*")${FRESH}((?:[^"\\\n]|\\.)+)(")`, 'gi'),
    replace: `$1${REDACTED}$4`,
    anchors: SECRET_ANCHORS,
  },
  // The same field in JSON escaped inside a string: kubectl's last-applied-configuration, a JSON
  // log line quoted in another (`\"password\":\"x\"`). The value ends at the next `\"`.
  {
    name: 'escaped json secret field',
    pattern: new RegExp(String.raw`(\\"(?=[^"\\\n]*?(?:${SECRET_WORD}|[_.-]pass)(?:[_.-]|\\"))${whole(String.raw`[^"\\\n]*`, 2)}\\"\s*:\s*\\")${FRESH}${whole(String.raw`(?:[^"\\\n]|\\(?!"))+`, 3)}(?=\\")`, 'gi'),
    replace: `$1${REDACTED}`,
    anchors: SECRET_ANCHORS,
  },
  // Provider-shaped keys, recognisable anywhere.
  provider('openai/anthropic key', String.raw`sk-(?:proj-|ant-(?:api\d+-)?|live-|test-|svcacct-|admin-)?[A-Za-z0-9_-]{16,}`, exact('sk-')),
  provider('stripe key', String.raw`(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{10,}`, exact('sk_', 'rk_')),
  provider('stripe webhook secret', String.raw`whsec_[A-Za-z0-9]{20,}`, exact('whsec_')),
  provider('hindsight key', String.raw`(?:hs|hsk)[_-][A-Za-z0-9_-]{16,}`, exact('hs_', 'hs-', 'hsk_', 'hsk-')),
  provider('github token', String.raw`(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})`, exact('ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_', 'github_pat_')),
  provider('gitlab token', String.raw`gl(?:pat|dt|ptt|rt|cbt|oas)-[A-Za-z0-9_-]{20,}`, exact('glpat-', 'gldt-', 'glptt-', 'glrt-', 'glcbt-', 'gloas-')),
  provider('slack token', String.raw`xox[abposre]-[A-Za-z0-9-]{10,}`, exact('xox')),
  { name: 'discord webhook', pattern: /(discord(?:app)?\.com\/api\/webhooks\/\d+\/)[A-Za-z0-9_-]{20,}/g, replace: `$1${REDACTED}`, anchors: exact('/api/webhooks/') },
  { name: 'slack webhook', pattern: /hooks\.slack\.com\/(?:services|workflows)\/[A-Za-z0-9/_-]{20,}/g, replace: REDACTED, anchors: exact('hooks.slack.com/') },
  provider('aws access key id', String.raw`(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|AROA|APKA|ASCA)${wrappable('[A-Z0-9]', 16)}${END}`, exact('A3T', 'AKIA', 'ASIA', 'ABIA', 'ACCA', 'AGPA', 'AIDA', 'AIPA', 'ANPA', 'ANVA', 'AROA', 'APKA', 'ASCA')),
  provider('google api key', `AIza${wrappable('[0-9A-Za-z_-]', 35)}`, exact('AIza')),
  provider('npm token', `npm_${wrappable('[A-Za-z0-9]', 36)}${END}`, exact('npm_')),
  provider('pypi token', String.raw`pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{40,}`, exact('pypi-AgEIcHlwaS5vcmc')),
  provider('huggingface token', String.raw`hf_[A-Za-z0-9]{30,}`, exact('hf_')),
  provider('sendgrid key', String.raw`SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}`, exact('SG.')),
  provider('shopify token', `shp(?:at|ca|pa|ss)_${wrappable('[a-fA-F0-9]', 32)}`, exact('shp')),
  provider('digitalocean token', `do[opr]_v1_${wrappable('[a-f0-9]', 64)}`, exact('_v1_')),
  provider('databricks token', `dapi${wrappable('[a-f0-9]', 32)}`, exact('dapi')),
  provider('docker hub token', String.raw`dckr_pat_[A-Za-z0-9_-]{20,}`, exact('dckr_pat_')),
  provider('google oauth access token', String.raw`ya29\.[A-Za-z0-9_.-]{20,}`, exact('ya29.')),
  provider('twilio key', `SK${wrappable('[0-9a-fA-F]', 32)}${END}`, exact('SK')),
  // The tenth session's: AI, infrastructure and messaging providers whose prefixes mark a key.
  provider('groq key', String.raw`gsk_[A-Za-z0-9]{20,}`, exact('gsk_')),
  provider('xai key', String.raw`xai-[A-Za-z0-9]{20,}`, exact('xai-')),
  provider('linear key', String.raw`lin_(?:api|oauth)_[A-Za-z0-9]{20,}`, exact('lin_api_', 'lin_oauth_')),
  provider('vault token', String.raw`hv[sbr]\.[A-Za-z0-9_-]{20,}`, exact('hvs.', 'hvb.', 'hvr.')),
  provider('age secret key', String.raw`AGE-SECRET-KEY-1[0-9A-Z]{40,}`, exact('AGE-SECRET-KEY-1')),
  provider('new relic key', String.raw`NR(?:AK|AA|II|JS)-[A-Za-z0-9]{20,}`, exact('NRAK-', 'NRAA-', 'NRII-', 'NRJS-')),
  provider('atlassian token', String.raw`ATATT3[A-Za-z0-9_=-]{20,}`, exact('ATATT3')),
  provider('doppler token', String.raw`dp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9_.-]{20,}`, exact('dp.')),
  provider('pulumi token', `pul-${wrappable('[a-f0-9]', 40)}`, exact('pul-')),
  provider('terraform cloud token', String.raw`[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{40,}`, exact('.atlasv1.')),
  provider('mailgun key', `key-${wrappable('[a-z0-9]', 32)}${END}`, exact('key-')),
  // Round 13: the prefixes of more providers a coding agent's user holds keys for (AI APIs,
  // observability, databases, registries, hosting), each with its published shape's length so a
  // word that only starts the same is left: found kept whole when printed bare (`echo $KEY`, an
  // error quoting the key), where no name says it is a secret.
  provider('slack app token', String.raw`xapp-[0-9]-[A-Za-z0-9-]{20,}`, exact('xapp-')),
  provider('grafana token', String.raw`(?:glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}|glc_[A-Za-z0-9+/]{32,}={0,2})`, exact('glsa_', 'glc_')),
  provider('sentry token', String.raw`sntry[su]_[A-Za-z0-9+/=_-]{40,}`, exact('sntrys_', 'sntryu_')),
  provider('replicate token', String.raw`r8_[A-Za-z0-9]{30,}`, exact('r8_')),
  provider('perplexity key', String.raw`pplx-[A-Za-z0-9]{32,}`, exact('pplx-')),
  provider('tavily key', String.raw`tvly-(?:dev-|prod-)?[A-Za-z0-9]{20,}`, exact('tvly-')),
  provider('nvidia key', String.raw`nvapi-[A-Za-z0-9_-]{40,}`, exact('nvapi-')),
  provider('fireworks key', String.raw`fw_[A-Za-z0-9]{20,}`, exact('fw_')),
  provider('square token', String.raw`sq0(?:atp|csp)-[A-Za-z0-9_-]{22,}`, exact('sq0atp-', 'sq0csp-')),
  provider('facebook access token', String.raw`EAA[A-Za-z0-9]{80,}`, exact('EAA')),
  provider('google oauth refresh token', String.raw`1\/\/0[A-Za-z0-9_-]{40,}`, exact('1//0')),
  provider('langsmith key', String.raw`lsv2_(?:pt|sk)_[A-Za-z0-9_]{20,}`, exact('lsv2_')),
  provider('posthog personal key', String.raw`phx_[A-Za-z0-9]{30,}`, exact('phx_')),
  provider('notion token', String.raw`(?:secret_[A-Za-z0-9]{43}(?![A-Za-z0-9_])|ntn_[A-Za-z0-9]{40,})`, exact('secret_', 'ntn_')),
  provider('figma token', String.raw`figd_[A-Za-z0-9_-]{30,}`, exact('figd_')),
  provider('supabase key', String.raw`(?:sbp_[a-f0-9]{40}|sb_secret_[A-Za-z0-9_-]{20,})`, exact('sbp_', 'sb_secret_')),
  provider('postman key', String.raw`PMAK-[A-Za-z0-9]{20,}-[A-Za-z0-9]{20,}`, exact('PMAK-')),
  provider('planetscale token', String.raw`pscale_(?:tkn|pw|oauth)_[A-Za-z0-9_.-]{30,}`, exact('pscale_')),
  provider('rubygems key', String.raw`rubygems_[a-f0-9]{48}`, exact('rubygems_')),
  provider('nuget key', `oy2[a-z0-9]{43}${END}`, exact('oy2')),
  provider('alibaba access key id', `LTAI[A-Za-z0-9]{12,20}${END}`, exact('LTAI')),
  provider('airtable token', String.raw`pat[A-Za-z0-9]{14}\.[a-f0-9]{64}`, exact('pat')),
  provider('heroku key', String.raw`HRKU-[A-Za-z0-9_-]{30,}`, exact('HRKU-')),
  provider('fly token', String.raw`fm[12]_[A-Za-z0-9+/=_-]{40,}`, exact('fm1_', 'fm2_')),
  provider('netlify token', String.raw`nfp_[A-Za-z0-9]{36,}`, exact('nfp_')),
  provider('vercel token', String.raw`vc[pikar]_[A-Za-z0-9]{24,}`, exact('vcp_', 'vci_', 'vck_', 'vca_', 'vcr_')),
  provider('atlassian connect token', String.raw`ATCTT3[A-Za-z0-9_=-]{20,}`, exact('ATCTT3')),
  provider('mapbox secret token', String.raw`sk\.eyJ[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{20,}`, exact('sk.eyJ')),
  provider('contentful token', String.raw`CFPAT-[A-Za-z0-9_-]{40,}`, exact('CFPAT-')),
  provider('firebase server key', String.raw`AAAA[A-Za-z0-9_-]{7}:APA91b[A-Za-z0-9_-]{100,}`, exact(':APA91b')),
  provider('render key', String.raw`rnd_[A-Za-z0-9]{30,}`, exact('rnd_')),
  provider('1password service account token', String.raw`ops_eyJ[A-Za-z0-9+/=_-]{100,}`, exact('ops_eyJ')),
  // A Telegram bot token, alone or in a bot API URL (`/bot123456789:AA…`).
  provider('telegram bot token', String.raw`(?:bot)?[0-9]{8,10}:AA[A-Za-z0-9_-]{30,}`, exact(':AA')),
  // A JWT, on one line or broken over lines at its dots or wrapped (`hideJwts`, a scanner: a regex
  // of the shape rescanned `-eyJ-eyJ-eyJ…` from each `eyJ`).
  { name: 'jwt', scan: (text) => hideJwts(text), anchors: exact('eyJ') },
  // Azure storage / service bus connection strings: `AccountKey=...;`, `SharedAccessKey=...`.
  {
    name: 'azure connection string key',
    pattern: new RegExp(String.raw`\b((?:AccountKey|SharedAccessKey|SharedAccessSignature)\s*=\s*)${FRESH}[^;\s"']+`, 'gi'),
    replace: `$1${REDACTED}`,
    anchors: anyCase('accountkey', 'sharedaccess'),
  },
  // A quoted value under a secret name is taken to its closing quote, spaces and all:
  // `DB_PASSWORD="correct horse battery staple"`, `password: 'two words'`.
  {
    name: 'quoted secret assignment',
    pattern: new RegExp(
      String.raw`((?<![A-Za-z0-9_.-])(?!(?<=${KEY_FIRST_WORD} )key)(?=${NAME_CHAR}*?(?:${SECRET_WORD}|[A-Za-z0-9][_.-]pass)(?:[_.-]|(?![A-Za-z0-9])))${whole(`${NAME_CHAR}+`, 2)}["']?\s*${ASSIGN}\s*(["']))${FRESH}${whole(String.raw`[^"'\n]+`, 4)}(?=\3)`,
      'gi',
    ),
    replace: `$1${REDACTED}`,
    anchors: SECRET_ANCHORS,
  },
  // fish's `set -x NAME value` (`-gx`, `-Ux`, `--export`): no `=` or `:` between name and value.
  // The name must end in a secret word (`set -l token_count 3` stays); a quoted value is taken whole.
  // A flag `-set` starts nothing: from each `set` of `set -set -set …` the flags were read to the
  // end again (64 KB took 2.5 s, round 11).
  {
    name: 'fish secret variable',
    pattern: new RegExp(
      String.raw`((?<![A-Za-z0-9_])(?<!(?:^|\s)--?)set[ \t]+(?:--?[A-Za-z]+[ \t]+)+${whole('[A-Za-z0-9_]+', 2)}(?<=${SECRET_WORD}|_pass)[ \t]+)${FRESH}(?:"[^"\n]*"|'[^'\n]*'|[^\s"';]+)`,
      'gi',
    ),
    replace: `$1${REDACTED}`,
    anchors: anyCase('set'),
  },
  // Terraform: `variable "db_password" {` then, lines later, `default = "x"` (round 12 left it).
  { name: 'terraform secret variable default', scan: (text) => hideTerraformDefaults(text), anchors: exact('variable') },
  // A tool's short password flag: `mysql -pS3cret`, `redis-cli -a S3cret`, `docker login -p S3cret`.
  { name: 'tool password flag', scan: (text) => hideToolPasswordFlags(text), anchors: anyCase('mysql', 'mariadb', 'redis-cli', 'openssl', 'htpasswd', 'docker login', 'podman login', 'helm registry login', 'buildah login', 'skopeo login') },
  // `sshpass -p value` (the password on the command line), quoted or not.
  {
    name: 'sshpass password',
    pattern: new RegExp(String.raw`(\bsshpass[ \t]+-p[ \t]*)${FRESH}(?:"[^"\n]*"|'[^'\n]*'|[^\s"']+)`, 'g'),
    replace: `$1${REDACTED}`,
    anchors: exact('sshpass'),
  },
  // npm's credentials: `npm config set //registry/:_authToken value` (a space, no `=`) and
  // `.npmrc`'s `_auth=<base64 of user:password>`. `the _auth field` stays: the space form needs
  // the `:` of a registry key or `set` before it. `set` is read forward, not looked behind for: a
  // look-behind over `[ \t]+` rescanned a run of spaces from each of its positions (64 KB of
  // spaces before `_auth` took 6.6 s, round 11).
  {
    name: 'npm auth setting',
    pattern: new RegExp(String.raw`((?:(?<=:)|\bset[ \t]+)_(?:authToken|auth|password)[ \t]+|(?<![A-Za-z0-9_])_auth[ \t]*=[ \t]*)${FRESH}([^\s"'\`,;)]+)`, 'g'),
    replace: `$1${REDACTED}`,
    anchors: exact('_auth', '_password'),
  },
  // Docker's config: `"auth": "<base64 of user:password>"`; hidden when it decodes to a `user:` pair.
  {
    name: 'docker auth field',
    // Also escaped inside a string (`\"auth\":\"…\"`: a config in a Kubernetes secret's JSON, a log line), at any depth.
    // Its backslashes are read from where their run starts: from each of them, a run of 16 KB took 0.8 s (round 11).
    pattern: new RegExp(String.raw`((?<!\\)\\*"auth\\*"\s*:\s*\\*")${FRESH}([A-Za-z0-9+/]{8,}={0,2})(?=\\*")`, 'g'),
    replace: (match, prefix, value) => (typeof prefix === 'string' && typeof value === 'string' && Buffer.from(value, 'base64').toString('utf8').includes(':') ? `${prefix}${REDACTED}` : match),
    anchors: exact('auth"', 'auth\\'),
  },
  // A `.pgpass` line, `host:port:database:user:password`, as a word of its own (after a line
  // start, a space or a quote: `echo '…' >> ~/.pgpass`). The port is digits or `*`, the user
  // holds a letter or is `*` (`12:30:45:00:01` stays), and a path is no host
  // (`src/a.ts:10:5:error:x` stays). No field holds `:`, so each is read once.
  {
    name: 'pgpass line',
    pattern: new RegExp(
      String.raw`((?<![^\s"'])(?:[A-Za-z0-9_.-]+|\*):(?:\d{1,5}|\*):(?:[A-Za-z0-9_.$-]+|\*):(?=[^:\s]*[A-Za-z*])(?:[A-Za-z0-9_.@$-]+|\*):)${FRESH}([^\s"']+)`,
      'g',
    ),
    replace: `$1${REDACTED}`,
    anchors: exact(':'),
  },
  // A command-line flag whose name ends in a secret word, its value after a space:
  // `--password x`, `--api-key "x"`. `--token-file path` names a file, not a secret. A shell
  // line continuation (`--password \` then the value on the next line) counts as the space.
  {
    name: 'secret command-line flag',
    pattern: new RegExp(
      String.raw`((?<![A-Za-z0-9_-])--${whole('[A-Za-z0-9-]+', 2)}(?<=-(?:password|passwd|pass|pwd|passphrase|token|secret|api-?key|access-key|secret-key|credentials?))(?:[ \t]|\\\r?\n)+(["']?))${FRESH}(?!-|\\\r?\n)${whole(String.raw`[^\s"']+`, 4)}`,
      'gi',
    ),
    replace: `$1${REDACTED}`,
    anchors: SECRET_ANCHORS,
  },
  // `curl -u user:password`, `--user`, `--proxy-user`, `-U`; `-u 1000:1000` (a uid:gid) stays.
  {
    name: 'command-line user and password',
    pattern: new RegExp(String.raw`((?<![A-Za-z0-9_-])(?:-u|-U|--user|--proxy-user)[ \t]+(["']?)[^\s:"'@]+:)${FRESH}(?![0-9]+(?![^\s"']))${whole(String.raw`[^\s"']+`, 3)}`, 'g'),
    replace: `$1${REDACTED}`,
    anchors: exact('-u', '-U'),
  },
  // An XML element named like a secret: Maven's `<password>x</password>`, `<apiKey>x</apiKey>`.
  {
    name: 'xml secret element',
    pattern: new RegExp(String.raw`(<${whole('[A-Za-z0-9_.:-]+', 2)}(?<=(?:${SECRET_WORD}|[_.-]pass))>)${FRESH}${whole(String.raw`[^<\n]+`, 3)}(?=<\/)`, 'gi'),
    replace: `$1${REDACTED}`,
    anchors: SECRET_ANCHORS,
  },
  // Round 12, secrets as people paste them. .NET's appSettings: `<add key="ApiSecret" value="x" />`.
  {
    name: 'xml secret key value',
    pattern: new RegExp(
      String.raw`(\bkey\s*=\s*(["'])${whole('[A-Za-z0-9_.:-]+', 3)}(?<=(?:${SECRET_WORD}|[_.-]pass))\2\s+value\s*=\s*(["']))${FRESH}${whole(String.raw`[^"'\n]+`, 5)}(?=\4)`,
      'gi',
    ),
    replace: `$1${REDACTED}`,
    anchors: anyCase('value'),
  },
  // A table's cell named like a secret, then its value's cell: the AWS CLI's `--output table`
  // (`|  SecretAccessKey |  wJalr…  |`), a pasted markdown table. The value must look like a key.
  {
    name: 'secret table cell',
    pattern: new RegExp(
      String.raw`(\|[ \t]*${whole('[A-Za-z0-9_.-]+', 2)}(?<=${SECRET_WORD})[ \t]*\|[ \t]*)${FRESH}(?=[A-Za-z0-9+/_=-]*\d)${whole('[A-Za-z0-9+/_=-]{16,}', 3)}`,
      'gi',
    ),
    replace: `$1${REDACTED}`,
    anchors: exact('|'),
  },
  // `vault operator init`: `Unseal Key 1: <base64>` (the root token is `hvs.`, a provider's shape).
  { name: 'vault unseal key', pattern: new RegExp(String.raw`(\bUnseal Key(?: \d+)?:[ \t]*)${FRESH}[A-Za-z0-9+/=]{20,}`, 'g'), replace: `$1${REDACTED}`, anchors: exact('Unseal Key') },
  // A password piped to a login: `echo S3cret | docker login --password-stdin -u ann`.
  {
    name: 'echo to password stdin',
    pattern: new RegExp(String.raw`(\becho[ \t]+(?:-n[ \t]+)?)${FRESH}(["']?)(?!\$)([^\s"'|;&]{4,})\2([ \t]*\|[^|\n]*--password-stdin)`, 'g'),
    replace: `$1$2${REDACTED}$2$4`,
    anchors: exact('--password-stdin'),
  },
  // A password set on a line of its own, unquoted, in words: `password=correct horse battery
  // staple`, `PASSWORD: two words`, `  db_password: x y` (.env, YAML, INI, properties). The name
  // (after indentation, `export ` or `- `) ends in a password word; the value runs to the line's
  // end. A quoted value is the quoted rule's; mid-line, only the word after is taken (below).
  {
    name: 'password line',
    pattern: new RegExp(
      String.raw`^([ \t]*(?:export[ \t]+|-[ \t]+)?["']?${whole('[A-Za-z0-9_.-]+', 2)}(?<=pass(?:word|phrase|wd)|pwd)["']?[ \t]*(?:=|:=|::?(?!=))[ \t]*)${FRESH}(?!["'])([^\s"'][^\r\n]*)`,
      'gim',
    ),
    replace: `$1${REDACTED}`,
    anchors: anyCase('pass', 'pwd'),
  },
  // Env-style names in capitals: `DB_PASS=x`, `STRIPE_KEY=x`, `SESSION_SECRET: x`, `STRIPE_PRIVATE=x`.
  // A quoted value is taken to its closing quote on the line (`DB_PW="two words"` kept `words`,
  // round 13: `_PW` and `_PRIVATE` are no secret word of the quoted rule); each quote's run is read
  // to the next same quote only, so a start never reads past the next one's.
  {
    name: 'env secret assignment',
    pattern: new RegExp(
      String.raw`(\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*_(?:PASS|PASSWD|PASSWORD|PWD|PW|SECRET|TOKEN|KEY|CREDENTIALS?|PRIVATE)["']?\s*${ASSIGN}\s*)${FRESH}(?:(["'])${FRESH}(?:(?<=")${whole('[^"\n]+', 3)}(?=")|(?<=')${whole("[^'\n]+", 4)}(?='))|(["']?)${FRESH}(${ASSIGNED_VALUE}))`,
      'g',
    ),
    replace: (match, prefix, quote, _double, _single, open) =>
      typeof prefix !== 'string' ? match : typeof quote === 'string' ? `${prefix}${quote}${REDACTED}` : `${prefix}${typeof open === 'string' ? open : ''}${REDACTED}`,
    anchors: exact('_PASS', '_PWD', '_PW', '_SECRET', '_TOKEN', '_KEY', '_CREDENTIAL', '_PRIVATE'),
  },
  // Prose: "my password is hunter2", "the passphrase was: x", "my password is correct horse
  // battery staple and I use it everywhere", "the password for the wifi is tulip garden 42, ask
  // Ann". A password word makes what follows the secret, whatever it looks like: a quoted value
  // whole (on its line, at most 200 characters), else the next word and the words after it on the
  // line, up to eight in all, until a sentence's punctuation closes one or a word that starts a
  // new clause (`and`, `the`, `for`…) comes: a passphrase in words has none of them.
  {
    name: 'password in prose',
    // The value is read by `hideProseValue`. Each word is taken whole and the words are a bounded
    // repetition over disjoint classes (spaces, then a word), so nothing is ever re-split.
    pattern: new RegExp(
      String.raw`(\b(?:password|passphrase|passcode|passwd|pwd|pin code)(?:\s+(?:for|to|of|on)(?:[ \t]+[^\s]+){1,3}?)?(?:\s+(?:is|was|will be|=(?![>=])|:)|:(?=[ \t]))\s*(?:[:=]\s*)?)${FRESH}${PROSE_NO_VALUE}` +
        String.raw`(?:(["'\u2018\u201c])${FRESH}([^"'\u2019\u201d\r\n]{1,200})(?=["'\u2019\u201d])|(["'\u2018\u201c]?)${FRESH}${whole(PROSE_WORD, 5)}((?:(?<![.,;!?)])[ \t]+(?!${PROSE_STOP}(?![A-Za-z0-9]))${PROSE_WORD}){0,7})(?=(["'\u2019\u201d]?)))`,
      'gi',
    ),
    replace: (match, ...args) => hideProseValue(match, args),
    anchors: anyCase('pass', 'pwd', 'pin code'),
  },
  // Round 13: a password named in another language: `Passwort: x`, `mein Passwort ist x`, `le mot
  // de passe est x`, `la contraseña es x`, `a senha é x`, `пароль: x`, `密码是x`, `パスワードはx`,
  // `비밀번호: x` (every one was kept). The word, then a separator or a copula (a word needs one:
  // `Passwort vergessen` stays), then one value (quoted: to its closing quote); an article or a
  // negation after the copula is no value. Only ASCII, Latin-1/Extended and Cyrillic letters count
  // as a word's letters around it, so `Passwortmanager` stays.
  {
    name: 'password in other languages',
    pattern: new RegExp(
      String.raw`((?<![A-Za-z\u00C0-\u024F\u0400-\u04FF])(?:passwort|kennwort|mot de passe|contrase(?:ñ|n)a|senha|palavra-passe|wachtwoord|has(?:ł|l)o|heslo|(?:ş|s)ifre|salasana|l(?:ö|o)senord|passord|adgangskode|jelsz(?:ó|o)|пароль|mật khẩu)(?![A-Za-z\u00C0-\u024F\u0400-\u04FF])(?:[ \t]*(?:${ASSIGN}|\uFF1A)[ \t]*|[ \t]+${FOREIGN_COPULA}[ \t]*(?:${ASSIGN}[ \t]*)?)` +
        String.raw`|(?:密码|密碼|口令|パスワード|暗証番号|비밀번호)[ \t]*(?:是|为|為|は|는|은|:|=|\uFF1A)[ \t]*)${FOREIGN_VALUE}`,
      'gi',
    ),
    replace: (match, ...args) => hideForeignValue(match, args),
    anchors: anyCase('passwort', 'kennwort', 'mot de passe', 'contraseña', 'contrasena', 'senha', 'palavra-passe', 'wachtwoord', 'hasło', 'haslo', 'heslo', 'şifre', 'sifre', 'salasana', 'lösenord', 'losenord', 'passord', 'adgangskode', 'jelszó', 'jelszo', 'пароль', 'mật khẩu', '密码', '密碼', '口令', 'パスワード', '暗証番号', '비밀번호'),
  },
  // The English word with another language's copula: `la password è x` (Italian), `das password ist x`.
  // Apart from the rule above so English text (which holds "password" often) pays one literal scan only.
  {
    name: 'password with another language copula',
    pattern: new RegExp(String.raw`(\bpassword[ \t]+${FOREIGN_COPULA}[ \t]*(?:${ASSIGN}[ \t]*)?)${FOREIGN_VALUE}`, 'gi'),
    replace: (match, ...args) => hideForeignValue(match, args),
    anchors: anyCase('password'),
  },
  // A quoted value said in prose after any secret word: `the token is "abc def ghi"`, `my api key
  // was 'x y'` (the password words' rule above reads unquoted words too; a token's unquoted word
  // is left to the key-shaped rules, as "the token is expired" is no secret). Bounded and on its line.
  {
    name: 'quoted secret in prose',
    pattern: new RegExp(String.raw`(\b${SECRET_WORD}\s+(?:is|was|will be|are|were)\s*(?::\s*)?(["'\u2018\u201c]))${FRESH}([^"'\u2019\u201d\r\n]{1,200})(?=["'\u2019\u201d])`, 'gi'),
    replace: `$1${REDACTED}`,
    anchors: SECRET_ANCHORS,
  },
  // `NAME=value`, `password: value`, `token value` where the name looks secret. The value runs
  // through `&` (a password holds one as often as a URL's next parameter does, and a URL's query
  // is the query rule's, before this one): `x DB_PASSWORD=hunter2-Tr0ub4dor&3` kept `&3`.
  {
    name: 'secret assignment',
    // A name is read from where its run starts: checked by look-ahead (the word, then a
    // separator or the end of the name), then taken whole.
    pattern: new RegExp(
      String.raw`((?<![A-Za-z0-9_.-])(?!(?<=${KEY_FIRST_WORD} )key)(?=${NAME_CHAR}*?(?:${SECRET_WORD}|[A-Za-z0-9][_.-]pass)(?:[_.-]|(?![A-Za-z0-9])))${whole(`${NAME_CHAR}+`, 2)}["']?\s*${ASSIGN}\s*["']?)${FRESH}(${ASSIGNED_VALUE})`,
      'gi',
    ),
    replace: `$1${REDACTED}`,
    anchors: SECRET_ANCHORS,
  },
  // A `.netrc` line: `machine host login user password secret` (the value needs no `=` or `:`).
  {
    name: 'netrc password',
    pattern: new RegExp(String.raw`(\blogin[ \t]+[^\s]+[ \t]+(?:password|passwd)[ \t]+)${FRESH}([^\s]+)`, 'g'),
    replace: `$1${REDACTED}`,
    anchors: exact('login'),
  },
  {
    name: 'secret after key word',
    // A long hex/base64-looking run with at least one digit, right after a key-ish word.
    pattern: new RegExp(String.raw`(\b${SECRET_WORD}\s+(?:is\s+)?)${FRESH}(?=[A-Za-z0-9+/_=-]*\d)([A-Za-z0-9+/_=-]{20,})`, 'gi'),
    replace: `$1${REDACTED}`,
    anchors: SECRET_ANCHORS,
  },
  // Base64 or hex of any shape above (`echo c2stcHJvai0… | base64 -d`, a Kubernetes secret's
  // data, a config blob, `xxd -p` output): a run that decodes to text the rules above would change
  // is hidden whole.
  { name: 'base64 of a secret', scan: (text) => hideEncodedSecrets(text) },
  // Last: the rest of a hidden secret that a terminal wrapped or a shell continued onto the next
  // lines (a key cut at the terminal's width, a PEM or base64 body under a secret name).
  { name: 'wrapped secret continuation', scan: (text) => hideContinuations(text), anchors: exact(REDACTED) },
];

/** The shape rules a decoded base64 text is tried against: every rule before the base64 one. */
const shapeRules: readonly Rule[] = rules.slice(0, rules.findIndex((rule) => rule.name === 'base64 of a secret'));

const scans = new WeakMap<readonly Rule[], RegExp | undefined>();
const ruleScans = new WeakMap<Anchors, RegExp>();

const escaped = (anchor: string): string => anchor.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');

interface TrieNode {
  end: boolean;
  readonly next: Map<string, TrieNode>;
}

/**
 * A regex source that a text holds some word of `words` against, shared prefixes factored out
 * (`s(?:ecret|ig|k)`): the engine tests one character class where a position starts no word
 * instead of every word in turn (a fifth less time than the flat alternation on session text). A
 * word with a shorter word as its prefix is left out: whatever holds it holds the shorter one.
 */
const trieSource = (words: readonly string[]): string => {
  const root: TrieNode = { end: false, next: new Map() };
  for (const word of words) {
    let node = root;
    for (const ch of word) {
      let child = node.next.get(ch);
      if (child === undefined) node.next.set(ch, (child = { end: false, next: new Map() }));
      node = child;
    }
    node.end = true;
  }
  const source = (node: TrieNode): string => {
    if (node.end) return '';
    const branches = [...node.next].map(([ch, child]) => `${escaped(ch)}${source(child)}`);
    return branches.length === 1 ? (branches[0] ?? '') : `(?:${branches.join('|')})`;
  };
  return source(root);
};

/**
 * One regex of every anchor of `ruleSet`, in any ASCII case (an exact-case anchor found in
 * another case is a false hit, which only sends the text on to the per-rule check); undefined
 * when a rule set has no anchors.
 */
const anchorScan = (ruleSet: readonly Rule[]): RegExp | undefined => {
  if (scans.has(ruleSet)) return scans.get(ruleSet);
  const anchors = [...new Set(ruleSet.flatMap((rule) => rule.anchors?.any.map((anchor) => anchor.toLowerCase()) ?? []))];
  const scan = anchors.length === 0 ? undefined : new RegExp(trieSource(anchors), 'i');
  scans.set(ruleSet, scan);
  return scan;
};

/** True when `text` holds one of `anchors`: as written, or in any ASCII case when `ignoreCase`. */
const holdsAnchor = (anchors: Anchors, text: string): boolean => {
  if (!anchors.ignoreCase) return anchors.any.some((anchor) => text.includes(anchor));
  let scan = ruleScans.get(anchors);
  if (scan === undefined) ruleScans.set(anchors, (scan = new RegExp(anchors.any.map(escaped).join('|'), 'i')));
  return scan.test(text);
};

const applyRule = (rule: Rule, text: string): string => {
  if ('scan' in rule) return rule.scan(text);
  return typeof rule.replace === 'string' ? text.replace(rule.pattern, rule.replace) : text.replace(rule.pattern, rule.replace);
};

/**
 * `ruleSet` applied in order, each only to a text that holds one of its anchors (a rule
 * without anchors, to every text). Case-blind anchors are looked for by a regex with the `i`
 * flag and without `u`, which matches ASCII letters in either ASCII case and nothing else
 * (not the Kelvin sign for `k`, not the long s for `s`): exactly the letters the rules' own
 * `i` regexes match, so a rule is never skipped where it could match, and no lower-cased copy
 * of the text is made.
 */
export const applyRules = (ruleSet: readonly Rule[], text: string): string => {
  let out = text;
  // One scan first: a text that holds no anchor of any rule skips every anchored rule at once.
  const anyAnchor = anchorScan(ruleSet);
  let skipAnchored = anyAnchor !== undefined && !anyAnchor.test(out);
  for (const rule of ruleSet) {
    const anchors = rule.anchors;
    if (anchors !== undefined && (skipAnchored || !holdsAnchor(anchors, out))) continue;
    const next = applyRule(rule, out);
    // A rule without anchors may have written one: each rule looks for its own again.
    if (next !== out) skipAnchored = false;
    out = next;
  }
  return out;
};

/**
 * Every rule applied in order. Idempotent (`test/config/redact.test.ts`): until 2026-11-27 the
 * header rules took a value they had already hidden again after a space
 * (`Authorization: [REDACTED]` -> `Authorization:[REDACTED]`, and the rest of the line with it),
 * so the queue's second pass over a live turn cut the line.
 */
export const redactPatterns = (text: string): string => applyRules(rules, text);

/** Every rule applied in order to the whole text, anchors ignored: what `redactPatterns` is held to in tests. */
export const redactPatternsWithoutAnchors = (text: string): string => rules.reduce((out, rule) => applyRule(rule, out), text);
