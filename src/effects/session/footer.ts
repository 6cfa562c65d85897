/**
 * The footer line: memory's state at a glance, in `statusMaxLength` characters. The most
 * important fact wins the space: off/setup/unsupported, then paused or degraded, then the
 * last activity and the queue depth.
 */
import type { MemoryConfig } from '../../config/fields.js';
import type { SessionView } from '../../machines/session/selectors.js';
import type { SetupState } from '../../machines/setup/selectors.js';

export type FooterConfig = Pick<MemoryConfig, 'statusStyle' | 'statusDetail' | 'statusMaxLength' | 'statusActivity'>;

export interface FooterInput {
  readonly setup: SetupState;
  readonly session: SessionView | undefined;
  readonly queue: { readonly depth: number; readonly state: string } | undefined;
  readonly projectId: string;
  readonly bankId: string;
  /** Turns are not being saved (disk full, read-only): shown before anything but off/untrusted. */
  readonly retainFailing?: string;
  /** A setting keeps automatic recall or retain off (`retain off`, from `switchedOff`): never shown as ready. */
  readonly switchedOff?: string;
  /** A config file is not valid JSON (or cannot be read): said instead of "setup needed". */
  readonly configUnreadable?: boolean;
}

const SYMBOLS: Record<Exclude<FooterConfig['statusStyle'], 'off'>, { prefix: string; ok: string; warn: string; busy: string }> = {
  text: { prefix: 'memory:', ok: '', warn: '', busy: '' },
  emoji: { prefix: '🧠', ok: '', warn: '⚠️ ', busy: '⏳' },
  // nf-md-brain, and nf-fa-warning / nf-fa-spinner.
  nerdfont: { prefix: '\u{f09d1}', ok: '', warn: '\u{f071} ', busy: '\u{f110} ' },
};

const stateWord = (input: FooterInput): { word: string; warn: boolean } => {
  if (input.retainFailing !== undefined && input.setup !== 'disabled' && input.setup !== 'untrusted') return { word: 'retain failing', warn: true };
  switch (input.setup) {
    case 'disabled':
      return { word: 'off', warn: false };
    case 'untrusted':
      return { word: 'untrusted', warn: true };
    case 'unconfigured':
      // An unreadable config file is the thing to fix, not a setup to start: setup cannot
      // write over a file it could not read.
      return { word: input.configUnreadable === true ? 'config error' : 'setup needed', warn: true };
    case 'unsupported':
      return { word: 'unsupported', warn: true };
    case 'degraded':
      return { word: 'degraded', warn: true };
    case 'probing':
      return { word: 'connecting', warn: false };
    case 'bankMissing':
      return { word: 'creating bank', warn: false };
    case 'ready':
      break;
  }
  if (input.queue?.state === 'paused') return { word: 'paused', warn: true };
  if (input.switchedOff !== undefined) return { word: input.switchedOff, warn: true };
  if (input.session?.mode === 'ignored') return { word: 'ignored', warn: false };
  if (input.session?.mode === 'read-only') return { word: 'read-only', warn: false };
  return { word: 'ready', warn: false };
};

const cut = (text: string, max: number): string => {
  const chars = [...text];
  return chars.length <= max ? text : `${chars.slice(0, Math.max(1, max - 1)).join('')}…`;
};

/**
 * Whole parts, most important first, as many as fit: a part cut in the middle ("setup needed
 * · …", "degraded · skip…") told a person that something more was there but not what. Only a
 * first part longer than the limit is cut.
 */
const fit = (prefix: string, parts: readonly string[], max: number): string => {
  let text = `${prefix} ${parts[0] ?? ''}`;
  for (const part of parts.slice(1)) {
    const longer = `${text} · ${part}`;
    if ([...longer].length > max) break;
    text = longer;
  }
  return cut(text, max);
};

/** The footer text, or `undefined` to clear it (statusStyle off). */
export const footerText = (config: FooterConfig, input: FooterInput): string | undefined => {
  if (config.statusStyle === 'off') return undefined;
  const symbols = SYMBOLS[config.statusStyle];
  const { word, warn } = stateWord(input);
  const parts: string[] = [];
  const phase = input.session?.phase;
  const busy = config.statusActivity && (phase === 'recalling' || phase === 'retaining');
  // An armed /memory:next-opt-out is the person's own pending choice: it outranks the last
  // activity and the queue depth, which would otherwise push it past statusMaxLength.
  const skipNext = config.statusDetail !== 'minimal' && input.session?.nextOptOut === true;
  let head = word;
  if (word === 'ready' && config.statusDetail !== 'minimal') {
    if (busy) head = phase === 'recalling' ? 'recalling' : 'retaining';
    else if (skipNext) head = 'skip next';
    else if (config.statusActivity && input.session?.activity !== undefined) head = input.session.activity;
  }
  parts.push(`${warn ? symbols.warn : busy ? symbols.busy : symbols.ok}${head}`);
  if (skipNext && head !== 'skip next') parts.push('skip next');
  if (config.statusDetail !== 'minimal') {
    const depth = input.queue?.depth ?? 0;
    if (depth > 0) parts.push(`q${depth}`);
  }
  if (config.statusDetail === 'project' || config.statusDetail === 'verbose') parts.push(input.projectId);
  if (config.statusDetail === 'verbose') parts.push(input.bankId);
  return fit(symbols.prefix, parts, config.statusMaxLength);
};
