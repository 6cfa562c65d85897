/**
 * Guided setup (`/memory setup`, the hub's "Set up memory", first run's "Set up now"): the
 * server (probed: version, floor, what it can do; the embedded server offered when nothing
 * answers), the key (a variable's name, tested; never echoed), trust of a project file's
 * server, what memory keeps, how this project's memory is kept apart, its bank, starter
 * models; then the diff, and only on "yes" the writes. Every answer goes to the setup gate as
 * an event; dismissing any dialog (Esc) cancels with nothing written.
 */
import { startServerCommand } from '../../config/serverStart.js';
import * as E from 'fp-ts/lib/Either.js';
import { EnvVarName, HttpUrl, urlOrigin } from '../../config/codecs.js';
import type { LoadedConfig } from '../../config/load.js';
import type { Scope } from '../../config/scope.js';
import type { AgentUse } from '../../config/starterModels.js';
import { STARTER_MODELS } from '../../config/starterModels.js';
import { BankId } from '../../codecs/codecs.js';
import { decodeWith } from '../../codecs/decode.js';
import { setupEvents, type SetupEventInput } from '../../machines/setup/events.js';
import type { GuideStep } from '../../machines/setup/person.js';
import type { ClockPort } from '../ports/clock.js';
import type { ConfigFilePort } from '../ports/configFiles.js';
import { connectionWords, describeFailure, type Capabilities, type MemoryServer, type ServerFailure } from '../ports/memoryServer.js';
import type { UiPort } from '../ports/ui.js';
import { displayPath } from '../../config/displayPath.js';
import { previewAndWrite, type FileEdit } from './configWriter.js';

export interface GuideDeps {
  readonly ui: UiPort;
  readonly files: ConfigFilePort;
  readonly clock: ClockPort;
  /** The setup gate's dispatch: every answer is an event. */
  readonly dispatch: (event: SetupEventInput) => Promise<unknown>;
  readonly loaded: LoadedConfig;
  readonly scope: Scope;
  /** The scope a changed config would have (the bank a mode would derive). */
  readonly scopeFor: (config: LoadedConfig['config']) => Scope;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** A client for a server the person names (not in config yet): probes only. */
  readonly openServer: (baseUrl: string, apiKey: string | undefined) => MemoryServer;
  /** The command that starts the embedded server where the person is. */
  readonly serverCommand: string;
  readonly via: 'first-run' | 'command' | 'hub';
}

export interface GuideResult {
  readonly outcome: 'written' | 'unchanged' | 'cancelled' | 'failed';
  /** What to tell the person (the hub or the command notifies it). */
  readonly text: string;
  /** The starter set to apply once the runtime has the new config. */
  readonly starters?: AgentUse;
  readonly bankId?: string;
}

const PROBE_MS = 3_000;

interface Probe {
  readonly caps?: Capabilities;
  /** An authenticated call (the bank list) answered. */
  readonly authorised: boolean;
  readonly banks: readonly string[];
  readonly failure?: string;
  readonly failureTag?: string;
}

const capabilityWords = (caps: Capabilities): string => {
  const f = caps.features;
  const can = [
    'recall',
    ...(f.append ? ['automatic retain'] : []),
    'reflect',
    ...(f.mentalModels ? ['mental models'] : []),
    ...(f.knowledge ? ['knowledge pages'] : []),
  ];
  return can.join(', ');
};

/**
 * Why nothing answers, in the words of the server step: the general description ends with what
 * to change in config (`memory.baseUrl`, `memory.timeoutMs`), which here the step's own
 * choices do ("Check again", "Use another server URL").
 */
const noAnswerCause = (f: ServerFailure): string => {
  if (f._tag === 'unreachable') {
    return connectionWords(f.message);
  }
  if (f._tag === 'timeout') return `no answer within ${PROBE_MS / 1000} s`;
  if (f._tag === 'badResponse' || f._tag === 'notFound' || f._tag === 'responseTooLarge') return 'something answers there, but not as a Hindsight server';
  return describeFailure(f);
};

/** Cancelled: a distinct value, so "skip" and "Esc" are never confused. */
const CANCEL = Symbol('cancel');
type Asked<A> = A | typeof CANCEL;

export const runGuide = async (deps: GuideDeps): Promise<GuideResult> => {
  const { ui, loaded, clock } = deps;
  const { config } = loaded;
  const home = loaded.home;
  const userPath = loaded.files.user.path;
  const projectPath = loaded.files.project.path;
  const userShown = displayPath(userPath, home);
  const projectShown = displayPath(projectPath, home, loaded.cwd);
  const userSets: { path: string; value: unknown }[] = [];
  const userUnsets: string[] = [];
  const projectSets: { path: string; value: unknown }[] = [];
  const user: FileEdit = { scope: 'user', path: userPath, set: userSets, unset: userUnsets };
  const project: FileEdit = { scope: 'project', path: projectPath, set: projectSets, unset: [] };
  const setUser = (p: string, value: unknown): void => void userSets.push({ path: p, value });
  const unsetUser = (p: string): void => void userUnsets.push(p);
  const setProject = (p: string, value: unknown): void => void projectSets.push({ path: p, value });

  const send = (event: SetupEventInput): Promise<unknown> => deps.dispatch(event);
  const answered = (step: GuideStep, answer: string): Promise<unknown> => send(setupEvents.guideAnswered({ at: clock.now(), step, answer }));
  const skipped = (step: GuideStep): Promise<unknown> => send(setupEvents.guideSkipped({ at: clock.now(), step }));
  const cancel = async (step: GuideStep): Promise<GuideResult> => {
    await send(setupEvents.guideCancelled({ at: clock.now(), step }));
    return { outcome: 'cancelled', text: 'Memory setup cancelled; nothing was written. Run /memory setup to start again.' };
  };
  const choose = async (title: string, options: readonly string[]): Promise<Asked<string>> => (await ui.select(title, options)) ?? CANCEL;
  // pi's input dialog draws no placeholder (both lines): the default is said in the title, and
  // Enter on an empty line takes it. On its own line when the title would pass an 80-column
  // screen (pi draws it one column in), so it is never split from its word "Enter".
  const ask = async (title: string, fallback: string): Promise<Asked<string>> => {
    const withDefault = `${title} (Enter for ${fallback})`;
    const text = await ui.input(fallback === '' ? title : withDefault.length > 78 ? `${title}\n(Enter for ${fallback})` : withDefault, fallback);
    if (text === undefined) return CANCEL;
    return text.trim() === '' ? fallback : text.trim();
  };

  await send(setupEvents.guideStarted({ at: clock.now(), via: deps.via }));

  const probe = async (url: string, key: string | undefined): Promise<Probe> => {
    const server = deps.openServer(url, key);
    // The person is asking now (the step opened, "Check again", a typed URL): it goes through as
    // the breaker's probe, so a server started after "nothing answers" is found at once rather
    // than after the cool-down the earlier failures began.
    const call = { deadline: clock.now() + PROBE_MS, probe: true };
    const caps = await server.capabilities(call)();
    if (E.isLeft(caps)) return { authorised: false, banks: [], failure: noAnswerCause(caps.left), failureTag: caps.left._tag };
    const banks = await server.listBanks({}, call)();
    if (E.isLeft(banks)) return { caps: caps.right, authorised: false, banks: [], failure: describeFailure(banks.left), failureTag: banks.left._tag };
    return { caps: caps.right, authorised: true, banks: banks.right.map((b) => b.bank_id) };
  };
  const keyValue = (): string | undefined => {
    const fromEnv = config.apiKeyEnv === undefined ? undefined : deps.env[config.apiKeyEnv];
    return fromEnv !== undefined && fromEnv !== '' ? fromEnv : config.apiKeyDirect;
  };

  // --- 1. The server -----------------------------------------------------------------------
  let url: string = config.baseUrl;
  const key = keyValue();
  let found: Probe = await probe(url, key);
  for (;;) {
    const caps = found.caps;
    const start = startServerCommand(deps.serverCommand, url);
    const title =
      caps === undefined
        ? [
            `Memory server: nothing answers at ${url} (${found.failure ?? 'no answer'}).`,
            ...(start === undefined
              ? ['Start the server there, then choose "Check again";', 'a server elsewhere: "Use another server URL".']
              : ['To use the embedded server, start it in another terminal:', `  ${start}`, 'then choose "Check again"; a server elsewhere: "Use another server URL".']),
          ].join('\n')
        : [
            `Memory server at ${url}: Hindsight ${caps.apiVersion}${caps.embedded ? ' (embedded)' : ''}.`,
            caps.features.append ? 'A version memory supports (0.8 or later, with append retain).' : 'NOT a version memory supports: upgrade the server to 0.8 or later (append retain).',
            `It can do: ${capabilityWords(caps)}.`,
          ].join('\n');
    const options = caps === undefined ? ['Check again', 'Use another server URL', 'Skip this step'] : [`Use ${url}`, 'Use another server URL', 'Skip this step'];
    const choice = await choose(title, options);
    if (choice === CANCEL) return cancel('server');
    if (choice === 'Check again') {
      found = await probe(url, key);
      continue;
    }
    if (choice === 'Skip this step') {
      await skipped('server');
      break;
    }
    if (choice === 'Use another server URL') {
      const typed = await ask('Memory server URL', 'http://localhost:8888');
      if (typed === CANCEL) return cancel('server');
      if (E.isLeft(decodeWith(HttpUrl, 'memory.baseUrl')(typed))) {
        ui.notify(`memory.baseUrl: "${typed.slice(0, 80)}" is not an http(s) URL; nothing was changed.`, 'warning');
        continue;
      }
      url = typed.replace(/\/+$/, '');
      found = await probe(url, key);
      // A typed URL that answers is the choice; one that does not is shown again with why.
      if (found.caps === undefined) continue;
    }
    await answered('server', url);
    if (url !== config.baseUrl || loaded.sources.baseUrl === 'project') {
      setUser('memory.baseUrl', url);
    }
    break;
  }

  // --- 2. The key --------------------------------------------------------------------------
  const noKeyNeeded = found.authorised && key === undefined;
  if (noKeyNeeded) {
    await answered('key', 'none needed (the server answered without a key)');
  } else {
    const refused = found.failureTag === 'unauthorized' || found.failureTag === 'forbidden';
    for (;;) {
      const title = [
        refused ? `The server at ${url} refused the call without a valid API key.` : `API key for ${url}${key === undefined ? '' : ' (one is set now)'}.`,
        'pi sends it to this server only. The key itself is never shown.',
      ].join('\n');
      const choice = await choose(title, [
        'Read it from an environment variable (recommended)',
        `Store it in ${userShown} (this computer only)`,
        'No key',
        'Skip this step',
      ]);
      if (choice === CANCEL) return cancel('key');
      if (choice === 'Skip this step') {
        await skipped('key');
        break;
      }
      if (choice === 'No key') {
        await answered('key', 'no key');
        if (config.apiKeyEnv !== undefined) unsetUser('memory.apiKeyEnv');
        if (config.apiKeyDirect !== undefined) unsetUser('memory.apiKeyDirect');
        break;
      }
      if (choice.startsWith('Read it')) {
        const name = await ask('Name of the environment variable that holds the key (its name, not the key)', 'MEMORY_API_KEY');
        if (name === CANCEL) return cancel('key');
        if (E.isLeft(decodeWith(EnvVarName, 'memory.apiKeyEnv')(name))) {
          ui.notify(`memory.apiKeyEnv: "${name.slice(0, 60)}" is not a variable name (letters, digits and _); nothing was changed.`, 'warning');
          continue;
        }
        const value = deps.env[name];
        if (value === undefined || value === '') {
          ui.notify(`${name} is not set in this pi's environment: set it before starting pi. Setup records the name only.`, 'warning');
        } else {
          const tested = await probe(url, value);
          ui.notify(tested.authorised ? `The server accepted the key in ${name}.` : `The server did not accept the key in ${name}: ${tested.failure ?? 'no answer'}.`, tested.authorised ? 'info' : 'warning');
        }
        await answered('key', `variable ${name}`);
        setUser('memory.apiKeyEnv', name);
        if (config.apiKeyDirect !== undefined) unsetUser('memory.apiKeyDirect');
        break;
      }
      const raw = await ask(`API key (written only to ${userShown}, never to the project)`, '');
      if (raw === CANCEL) return cancel('key');
      if (raw === '') continue;
      const tested = await probe(url, raw);
      ui.notify(tested.authorised ? 'The server accepted the key.' : `The server did not accept the key: ${tested.failure ?? 'no answer'}.`, tested.authorised ? 'info' : 'warning');
      await answered('key', '(raw key entered)');
      setUser('memory.apiKeyDirect', raw);
      if (config.apiKeyEnv !== undefined) unsetUser('memory.apiKeyEnv');
      break;
    }
  }

  // --- 3. Trust of a project file that points memory elsewhere -----------------------------
  const trust = loaded.trust;
  if (!trust.memoryAllowed && trust.rule !== 'host-untrusted') {
    const origin = trust.origin;
    const ok = await ui.confirm(
      `Trust ${origin}?`,
      `This repository's ${projectShown} sends memory to ${origin}, which you have not trusted, so memory is off here. Trust it? (recorded in memory.trustedOrigins in ${userShown})`,
    );
    await answered('trust', ok ? `trusted ${origin}` : 'not trusted');
    if (ok) setUser('memory.trustedOrigins', [...new Set([...config.trustedOrigins, urlOrigin(origin) ?? origin])]);
  }

  // --- 4. What memory keeps ----------------------------------------------------------------
  const profiles = [
    ['project-only', 'This project: recall and save automatically (recommended)'],
    ['project+global', 'This project, and also recall from your personal memory'],
    ['recall-only', 'Recall only: never save automatically'],
  ] as const;
  const profileChoice = await choose('What should memory do in this project?', [...profiles.map(([, text]) => text), 'Skip this step']);
  if (profileChoice === CANCEL) return cancel('profile');
  const profile = profiles.find(([, text]) => text === profileChoice)?.[0];
  if (profile === undefined) await skipped('profile');
  else {
    await answered('profile', profile);
    setProject('banks.profile', profile);
    // The profile (and the user bank) decide whose memories this project reads: a project file's
    // values count only in a project the user file trusts, and the person chose them here.
    if (!config.trustedProjects.some((dir) => dir === loaded.cwd)) setUser('memory.trustedProjects', [...config.trustedProjects, loaded.cwd]);
    if (profile === 'project+global') {
      const personal = await ask('Your personal memory bank id (shared by all your projects)', config.globalBankId ?? 'personal');
      if (personal === CANCEL) return cancel('profile');
      const bank = personal === '' ? (config.globalBankId ?? 'personal') : personal;
      if (E.isLeft(decodeWith(BankId, 'banks.global.bankId')(bank))) {
        ui.notify(`banks.global.bankId: "${bank.slice(0, 60)}" is not a bank id; skipped.`, 'warning');
      } else {
        setProject('banks.global.enabled', true);
        setProject('banks.global.bankId', bank);
      }
    }
  }

  // --- 5. How this project's memory is kept apart ------------------------------------------
  const modes = [
    ['domain-tagged', 'One bank for all your projects, each kept apart by its tag (recommended)'],
    ['isolated-bank', 'A memory bank for this repository alone'],
  ] as const;
  const modeChoice = await choose('How should this project keep its memory?', [...modes.map(([, text]) => text), 'Skip this step']);
  if (modeChoice === CANCEL) return cancel('scope');
  const mode = modes.find(([, text]) => text === modeChoice)?.[0] ?? config.scopeMode;
  if (modeChoice === 'Skip this step') await skipped('scope');
  else {
    await answered('scope', mode);
    setProject('scope.mode', mode);
  }

  // --- 6. The bank -------------------------------------------------------------------------
  const derived = deps.scopeFor({ ...config, scopeMode: mode, projectBankId: undefined }).projectBank.bankId;
  const suggested = config.projectBankId ?? (mode === 'domain-tagged' ? 'coding' : derived);
  const existing = found.banks.filter((b) => b !== suggested).slice(0, 8);
  const newBank = !found.banks.includes(suggested);
  let bankId: string | undefined;
  for (;;) {
    const first = newBank ? `Create "${suggested}" (new)` : `Use "${suggested}"`;
    const choice = await choose(
      mode === 'domain-tagged' ? 'Which bank holds the memory of all your projects?' : 'Which bank holds this repository\'s memory?',
      [first, ...existing.map((b) => `Use "${b}"`), 'Another bank id', 'Skip this step'],
    );
    if (choice === CANCEL) return cancel('bank');
    if (choice === 'Skip this step') {
      await skipped('bank');
      break;
    }
    const picked = choice === 'Another bank id' ? await ask('Bank id', suggested) : /"(.*)"/.exec(choice)?.[1];
    if (picked === CANCEL) return cancel('bank');
    if (picked === undefined || E.isLeft(decodeWith(BankId, 'banks.project.bankId')(picked))) {
      ui.notify(`banks.project.bankId: "${String(picked).slice(0, 60)}" is not a bank id (letters, digits, . _ - :); nothing was changed.`, 'warning');
      continue;
    }
    bankId = picked;
    await answered('bank', picked);
    setProject('banks.project.bankId', picked);
    break;
  }

  // --- 7. Starter mental models ------------------------------------------------------------
  const starterNames = (use: AgentUse): string => STARTER_MODELS[use].map((m) => m.name.toLowerCase()).join(', ');
  const starterChoice = await choose('Start with mental models? Each keeps a running summary of one topic.', [
    `Coding: ${starterNames('coding')}`,
    `Conversation: ${starterNames('conversation')}`,
    'No starter models',
  ]);
  if (starterChoice === CANCEL) return cancel('starters');
  const starters: AgentUse | undefined = starterChoice.startsWith('Coding') ? 'coding' : starterChoice.startsWith('Conversation') ? 'conversation' : undefined;
  await answered('starters', starters ?? 'none');
  if (starters !== undefined) setProject('agentUse', starters);

  // --- 8. Review and write -----------------------------------------------------------------
  const bankKnown = bankId !== undefined || config.projectBankId !== undefined;
  const complete = mode !== 'domain-tagged' || bankKnown || profile === 'recall-only';
  if (complete) setProject('setupComplete', true);
  const extra = [
    ...(bankId !== undefined && !found.banks.includes(bankId) && found.caps !== undefined ? [`Creates the bank "${bankId}" on ${url}.`] : []),
    ...(starters === undefined ? [] : [`Creates the ${starters} starter mental models (${starterNames(starters)}) in it; existing ones are kept.`]),
    ...(complete ? [] : ['Setup stays incomplete: one bank for all projects needs a bank id (run /memory setup again).']),
  ];
  const outcome = await previewAndWrite({ ui, files: deps.files, home, cwd: loaded.cwd }, [user, project], 'Write this memory setup?', extra);
  switch (outcome._tag) {
    case 'declined':
      return cancel('review');
    case 'unchanged':
      await send(setupEvents.guideCancelled({ at: clock.now(), step: 'review' }));
      return { outcome: 'unchanged', text: 'Memory setup: nothing to change.' };
    case 'failed':
      await send(setupEvents.configWriteFailed({ at: clock.now(), reason: outcome.reason }));
      return { outcome: 'failed', text: `Memory setup was not written: ${outcome.reason}` };
    case 'written':
      await send(setupEvents.configWritten({ at: clock.now(), via: 'setup', files: outcome.plan.files.map((f) => f.path), fields: [...outcome.plan.fields] }));
      return {
        outcome: 'written',
        text: `Memory setup written (${outcome.plan.files.map((f) => displayPath(f.path, home)).join(', ')}).${complete ? '' : ' Setup is not complete yet.'}`,
        ...(starters === undefined ? {} : { starters }),
        ...(bankId === undefined ? {} : { bankId }),
      };
  }
};
