/**
 * The real `pi` CLI in RPC mode (`--mode rpc`), driven as a client would: commands on stdin,
 * events and `extension_ui_request` lines on stdout (split on LF only, pi-host.md 3.3). Each
 * dialog is answered by the first matching rule of a script the test gives, and recorded, so
 * a test counts the answers a person gave and sees every text shown. A dialog no rule matches
 * fails the test (it is answered `cancelled` so pi never waits).
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import * as path from 'node:path';
import { piExtension } from './piExtension.js';
import { piTmpEnv } from './piTmp.js';

const repo = path.resolve(import.meta.dirname, '..', '..');
const fauxProvider = path.join(repo, 'fixtures/pi/faux-provider.ts');

export type Dialog =
  | { readonly method: 'select'; readonly id: string; readonly title: string; readonly options: readonly string[] }
  | { readonly method: 'confirm'; readonly id: string; readonly title: string; readonly message: string }
  | { readonly method: 'input'; readonly id: string; readonly title: string; readonly placeholder?: string };

/** How a rule answers: an option (exact, or the first starting with it), text, yes/no, or Esc. */
export type Answer = { readonly option: string } | { readonly text: string } | { readonly confirm: boolean } | { readonly cancel: true };

export interface Rule {
  /** Matched against the dialog's title (and a confirm's message). */
  readonly when: RegExp;
  /** A function may act first (start a server the dialog asked for) and answer when done. */
  readonly answer: Answer | ((dialog: Dialog) => Answer | Promise<Answer>);
  /** Use at most once (then the next matching rule answers). Default: true. */
  readonly once?: boolean;
}

export interface Shown {
  readonly dialog: Dialog;
  readonly answer: Answer;
}

export interface PiRpc {
  /** Every dialog with its answer, in order. */
  readonly dialogs: readonly Shown[];
  readonly notices: readonly { readonly text: string; readonly level: string }[];
  readonly statuses: ReadonlyMap<string, string | undefined>;
  readonly stderr: () => string;
  /** Dialogs nothing answered (the test fails on any). */
  readonly unanswered: readonly Dialog[];
  /** Adds rules (checked before the earlier ones). */
  script(rules: readonly Rule[]): void;
  /** Sends a prompt (a message or a slash command). */
  prompt(message: string): void;
  /** Resolves when a notice matching `re` has arrived (after `from`, an index into notices). */
  notice(re: RegExp, o?: { readonly from?: number; readonly ms?: number }): Promise<string>;
  /** Resolves when an `agent_end` event has arrived `count` times. */
  agentEnds(count: number, ms?: number): Promise<void>;
  /** Ends pi (stdin EOF: pi shuts the session down) and waits for it to exit. */
  close(): Promise<number | null>;
}

export interface PiRpcOptions {
  readonly cli: string;
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  /** The scripted model's answers (fixtures/pi/faux-provider.ts). */
  readonly answers: readonly string[];
  readonly rules?: readonly Rule[];
  /** Node binary (the Node 22 one for pi 1.x). Default: this process's. */
  readonly node?: string;
}

const until = async (check: () => boolean, ms: number, what: string, detail: () => string): Promise<void> => {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}\n${detail()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
};

const respond = (dialog: Dialog, answer: Answer): Record<string, unknown> => {
  if ('cancel' in answer) return { type: 'extension_ui_response', id: dialog.id, cancelled: true };
  if ('confirm' in answer) return { type: 'extension_ui_response', id: dialog.id, confirmed: answer.confirm };
  if ('text' in answer) return { type: 'extension_ui_response', id: dialog.id, value: answer.text };
  if (dialog.method !== 'select') throw new Error(`rule answers an option to a ${dialog.method}: ${dialog.title}`);
  const value = dialog.options.find((o) => o === answer.option) ?? dialog.options.find((o) => o.startsWith(answer.option));
  if (value === undefined) throw new Error(`no option "${answer.option}" in "${dialog.title}": ${dialog.options.join(' | ')}`);
  return { type: 'extension_ui_response', id: dialog.id, value };
};

export const startPiRpc = (o: PiRpcOptions): PiRpc => {
  const child: ChildProcessWithoutNullStreams = spawn(
    o.node ?? process.execPath,
    [o.cli, '--no-extensions', '-e', fauxProvider, '-e', piExtension(), '--provider', 'faux', '--model', 'faux-1', '--no-builtin-tools', '--mode', 'rpc'],
    { cwd: o.cwd, env: { PATH: process.env['PATH'] ?? '', PI_OFFLINE: '1', ...piTmpEnv(), AM_FAUX_SCRIPT: JSON.stringify(o.answers), ...o.env }, stdio: ['pipe', 'pipe', 'pipe'] },
  );
  let rules: Rule[] = [...(o.rules ?? [])];
  const used = new Set<Rule>();
  const dialogs: Shown[] = [];
  const notices: { text: string; level: string }[] = [];
  const statuses = new Map<string, string | undefined>();
  const unanswered: Dialog[] = [];
  let ends = 0;
  let stderr = '';
  let buffer = '';
  let exited: number | null | undefined;
  const exit = new Promise<number | null>((resolve) => child.on('close', (code) => resolve((exited = code))));
  const send = (line: Record<string, unknown>): void => {
    if (exited === undefined) child.stdin.write(`${JSON.stringify(line)}\n`);
  };
  const onDialog = (dialog: Dialog): void => {
    const text = dialog.method === 'confirm' ? `${dialog.title}\n${dialog.message}` : dialog.title;
    const rule = rules.find((r) => r.when.test(text) && !(r.once !== false && used.has(r)));
    if (rule === undefined) {
      unanswered.push(dialog);
      send({ type: 'extension_ui_response', id: dialog.id, cancelled: true });
      return;
    }
    used.add(rule);
    const answering = typeof rule.answer === 'function' ? rule.answer(dialog) : rule.answer;
    if (answering instanceof Promise) {
      answering.then(
        (answer) => answerWith(dialog, answer),
        (error: unknown) => {
          unanswered.push({ ...dialog, title: `${dialog.title} [${error instanceof Error ? error.message : String(error)}]` });
          send({ type: 'extension_ui_response', id: dialog.id, cancelled: true });
        },
      );
      return;
    }
    answerWith(dialog, answering);
  };
  const answerWith = (dialog: Dialog, answer: Answer): void => {
    let response: Record<string, unknown>;
    try {
      response = respond(dialog, answer);
    } catch (error) {
      // A rule that does not fit its dialog: the test sees it in `unanswered`, pi is not left waiting.
      unanswered.push({ ...dialog, title: `${dialog.title} [${error instanceof Error ? error.message : String(error)}]` });
      send({ type: 'extension_ui_response', id: dialog.id, cancelled: true });
      return;
    }
    dialogs.push({ dialog, answer });
    send(response);
  };
  const onLine = (line: string): void => {
    if (line.trim() === '') return;
    let event: Record<string, unknown>;
    try {
      event = JSON.parse(line) as Record<string, unknown>;
    } catch {
      return;
    }
    if (event['type'] === 'agent_end') ends += 1;
    if (event['type'] !== 'extension_ui_request') return;
    const method = event['method'];
    if (method === 'notify') notices.push({ text: String(event['message']), level: String(event['notifyType'] ?? 'info') });
    else if (method === 'setStatus') statuses.set(String(event['statusKey']), event['statusText'] as string | undefined);
    else if (method === 'select' || method === 'confirm' || method === 'input') onDialog(event as unknown as Dialog);
  };
  child.stdout.on('data', (chunk: Buffer) => {
    buffer += chunk.toString();
    let nl = buffer.indexOf('\n');
    while (nl >= 0) {
      onLine(buffer.slice(0, nl));
      buffer = buffer.slice(nl + 1);
      nl = buffer.indexOf('\n');
    }
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const guard = setTimeout(() => child.kill('SIGKILL'), 120_000);
  let ids = 0;
  const detail = (): string =>
    [`notices: ${JSON.stringify(notices.map((n) => n.text.slice(0, 300)))}`, `statuses: ${JSON.stringify([...statuses])}`, `exited: ${String(exited)}`, `dialogs: ${JSON.stringify(dialogs.map((d) => d.dialog.title.slice(0, 120)))}`, `unanswered: ${JSON.stringify(unanswered.map((d) => d.title))}`, `stderr: ${stderr.slice(-2000)}`].join('\n');
  return {
    dialogs,
    notices,
    statuses,
    unanswered,
    stderr: () => stderr,
    script: (more) => {
      rules = [...more, ...rules];
    },
    prompt: (message) => send({ id: `c${++ids}`, type: 'prompt', message }),
    notice: async (re, w = {}) => {
      const from = w.from ?? 0;
      await until(() => notices.slice(from).some((n) => re.test(n.text)), w.ms ?? 30_000, `a notice matching ${re}`, detail);
      return notices.slice(from).find((n) => re.test(n.text))?.text ?? '';
    },
    agentEnds: (count, ms = 30_000) => until(() => ends >= count, ms, `${count} agent_end event(s)`, detail),
    close: async () => {
      child.stdin.end();
      const code = await Promise.race([exit, new Promise<null>((r) => setTimeout(() => r(null), 15_000))]);
      if (exited === undefined) child.kill('SIGKILL');
      clearTimeout(guard);
      return code;
    },
  };
};
