/**
 * The UI port's in-memory twin: answers come from a script, in order; every dialog, notice
 * and footer line is recorded. An answer that does not fit its dialog (a select option that
 * was not offered, a boolean for an input) is an error naming both, so a test that drifted
 * from the dialogs fails loudly instead of answering something else.
 */
import type { UiLevel, UiPort } from '../../effects/ports/ui.js';

/** One scripted answer: an option's text (or a prefix of it) / text / boolean, or `cancel`. */
export type ScriptedAnswer = string | boolean | { readonly cancel: true };

export type UiRecord =
  | { readonly kind: 'select'; readonly title: string; readonly options: readonly string[]; readonly answer: string | undefined }
  | { readonly kind: 'confirm'; readonly title: string; readonly message: string; readonly answer: boolean }
  | { readonly kind: 'input'; readonly title: string; readonly answer: string | undefined }
  | { readonly kind: 'notify'; readonly text: string; readonly level: UiLevel }
  | { readonly kind: 'status'; readonly key: string; readonly text: string | undefined };

export interface ScriptedUi extends UiPort {
  readonly records: readonly UiRecord[];
  /** Answers not used yet. */
  readonly remaining: readonly ScriptedAnswer[];
  /** Every text shown (titles, options, messages, notices), for checks over what a person reads. */
  shown(): string[];
}

export const createScriptedUi = (answers: readonly ScriptedAnswer[], o: { readonly interactive?: boolean } = {}): ScriptedUi => {
  const queue = [...answers];
  const records: UiRecord[] = [];
  const next = (dialog: string): ScriptedAnswer => {
    const answer = queue.shift();
    if (answer === undefined) throw new Error(`scripted UI: no answer left for ${dialog}`);
    return answer;
  };
  const cancelled = (a: ScriptedAnswer): boolean => typeof a === 'object';
  const interactive = o.interactive ?? true;
  // Without a UI nothing is asked (as pi's print mode): each dialog is dismissed, no answer used.
  const ask = (dialog: string): ScriptedAnswer => (interactive ? next(dialog) : { cancel: true });
  const pick = (title: string, options: readonly string[]): string | undefined => {
    const a = ask(`select "${title}"`);
    let answer: string | undefined;
    if (!cancelled(a)) {
      if (typeof a !== 'string') throw new Error(`scripted UI: select "${title}" needs an option, got ${String(a)}`);
      answer = options.find((opt) => opt === a) ?? options.find((opt) => opt.startsWith(a));
      if (answer === undefined) throw new Error(`scripted UI: select "${title}" offers no "${a}" (options: ${options.join(' | ')})`);
    }
    records.push({ kind: 'select', title, options: [...options], answer });
    return answer;
  };
  const yesNo = (title: string, message: string): boolean => {
    const a = ask(`confirm "${title}"`);
    if (!cancelled(a) && typeof a !== 'boolean') throw new Error(`scripted UI: confirm "${title}" needs true or false, got ${JSON.stringify(a)}`);
    const answer = a === true;
    records.push({ kind: 'confirm', title, message, answer });
    return answer;
  };
  const typed = (title: string): string | undefined => {
    const a = ask(`input "${title}"`);
    if (!cancelled(a) && typeof a !== 'string') throw new Error(`scripted UI: input "${title}" needs text, got ${String(a)}`);
    const answer = typeof a === 'string' ? a : undefined;
    records.push({ kind: 'input', title, answer });
    return answer;
  };
  return {
    interactive,
    get records() {
      return records;
    },
    get remaining() {
      return queue;
    },
    shown: () =>
      records.flatMap((r) => {
        switch (r.kind) {
          case 'select':
            return [r.title, ...r.options];
          case 'confirm':
            return [r.title, r.message];
          case 'input':
            return [r.title];
          case 'notify':
            return [r.text];
          case 'status':
            return r.text === undefined ? [] : [r.text];
        }
      }),
    select: (title, options) => {
      // A drifted script rejects like a failed dialog would, never throws synchronously.
      try {
        return Promise.resolve(pick(title, options));
      } catch (error) {
        return Promise.reject(error instanceof Error ? error : new Error(String(error)));
      }
    },
    confirm: (title, message) => {
      try {
        return Promise.resolve(yesNo(title, message));
      } catch (error) {
        return Promise.reject(error instanceof Error ? error : new Error(String(error)));
      }
    },
    input: (title) => {
      try {
        return Promise.resolve(typed(title));
      } catch (error) {
        return Promise.reject(error instanceof Error ? error : new Error(String(error)));
      }
    },
    notify: (text, level) => {
      records.push({ kind: 'notify', text, level });
    },
    setStatus: (key, text) => {
      records.push({ kind: 'status', key, text });
    },
  };
};
