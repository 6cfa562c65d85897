/**
 * memory_bank: inspect a bank (existence from the bank list, stats, config; a retired profile
 * endpoint is reported, never fatal) or update its retain/reflect/observations missions
 * (preview by default).
 */
import { toJson } from '../effects/kernel/trace.js';
import * as E from 'fp-ts/lib/Either.js';
import type * as t from 'io-ts';
import { resolveBank, type BankTarget } from '../config/scope.js';
import { displayPath } from '../config/displayPath.js';
import type { Presence, ServerFailure } from '../effects/ports/memoryServer.js';
import { isRecord, type JsonValue } from '../codecs/codecs.js';
import type { ToolContext } from './context.js';
import { oneOf, text, toolParams } from './params.js';
import { fail, ok, type ToolOutcome } from './result.js';
import { callOptions, failureOutcome, loadCapabilities, missingFeatures, runCall } from './serverCall.js';
import { bankParam, dryRunParam } from './sharedParams.js';
import { describeFailure } from '../effects/ports/memoryServer.js';
import { cleanLine, cleanText, withCleanDetails } from './text.js';
import { defineTool } from './tool.js';

export const MemoryBankParams = toolParams(
  'memory_bank',
  { action: oneOf(['get', 'update_mission'], 'get: existence, stats and config. update_mission: set missions (preview unless dryRun:false).') },
  {
    bank: bankParam,
    retainMission: text('What the bank should retain (extraction guidance).', 4000),
    reflectMission: text('How reflect should answer from this bank.', 4000),
    observationsMission: text('What observations should consolidate.', 4000),
    dryRun: dryRunParam,
  },
);
export type MemoryBankParams = t.TypeOf<typeof MemoryBankParams.codec>;

type Fact = { readonly state: 'present'; readonly value: JsonValue } | { readonly state: 'absent' | 'unsupported' | 'error'; readonly reason: string };

const fact = <A>(result: E.Either<ServerFailure, Presence<A>> | undefined, unsupportedReason: string): Fact => {
  if (result === undefined) return { state: 'unsupported', reason: unsupportedReason };
  if (E.isLeft(result)) return { state: 'error', reason: describeFailure(result.left) };
  if (result.right._tag === 'absent') {
    return { state: 'absent', reason: result.right.reason === 'gone' ? 'retired by the server (410 Gone); not an error' : 'not found (404)' };
  }
  return { state: 'present', value: toJson(result.right.value) };
};

const num = (o: Record<string, unknown>, key: string): string | undefined => (typeof o[key] === 'number' ? String(o[key]) : undefined);

/** Stats as one readable line: counts first, then what is pending or failed. */
const statsSummary = (v: Record<string, unknown>): string =>
  [
    ['memories', num(v, 'total_nodes')],
    ['documents', num(v, 'total_documents')],
    ['observations', num(v, 'total_observations')],
    ['pending operations', num(v, 'pending_operations')],
    ['failed operations', num(v, 'failed_operations')],
    // A server's string: one line, cleaned (a hostile server's held terminal escapes, tag characters and a forged line).
    ['last write', typeof v['last_memory_write_at'] === 'string' ? cleanLine(v['last_memory_write_at'], 40) : undefined],
  ]
    .filter((pair): pair is [string, string] => pair[1] !== undefined)
    .map(([k, value]) => `${k} ${value}`)
    .join(' · ');

const MISSIONS = ['retain_mission', 'reflect_mission', 'observations_mission'] as const;

/** Config as its missions and which keys the bank overrides; the full map stays in details. */
const configSummary = (v: Record<string, unknown>): string => {
  const config = isRecord(v['config']) ? v['config'] : {};
  const overrides: object = typeof v['overrides'] === 'object' && v['overrides'] !== null ? v['overrides'] : {};
  const missions = MISSIONS.map((m) => {
    const mission = config[m];
    return `${m.replace('_mission', '')}: ${typeof mission === 'string' && mission !== '' ? cleanLine(mission, 200) : 'not set'}`;
  });
  const keys = Object.keys(overrides);
  const shown = keys.slice(0, 20).map((key) => cleanLine(key, 60));
  const more = keys.length > shown.length ? ` and ${keys.length - shown.length} more` : '';
  return `${missions.join('; ')}; overrides: ${keys.length === 0 ? 'none' : `${shown.join(', ')}${more}`}`;
};

const factText = (label: string, f: Fact, summary: (v: Record<string, unknown>) => string): string =>
  f.state === 'present'
    ? `${label}: ${isRecord(f.value) ? summary(f.value) : cleanLine(JSON.stringify(f.value), 500)}`
    : `${label}: ${f.state} (${f.reason})`;

const getBank = async (bankId: string, ctx: ToolContext): Promise<ToolOutcome> => {
  const caps = await loadCapabilities(ctx, 'memory_bank get');
  if (E.isLeft(caps)) return caps.left;
  const o = callOptions(ctx);
  const version = caps.right.apiVersion;
  const [exists, stats, config, profile] = await Promise.all([
    runCall(ctx.server.bankExists(bankId, o)),
    caps.right.features.bankStats ? runCall(ctx.server.getBankStats(bankId, o)) : Promise.resolve(undefined),
    caps.right.features.bankConfig ? runCall(ctx.server.getBankConfig(bankId, o)) : Promise.resolve(undefined),
    runCall(ctx.server.getBankProfile(bankId, o)),
  ]);
  if (E.isLeft(exists)) return failureOutcome(ctx, `memory_bank get ${bankId}`, exists.left);
  const unsupported = (what: string) => `unsupported capability: ${what} is not supported by the connected memory server (version ${version})`;
  const statsFact = fact(stats, unsupported('bank stats'));
  const configFact = fact(config, unsupported('bank config'));
  const profileFact = fact(profile, 'not requested');
  const text = [
    `Bank ${bankId}: ${exists.right ? 'exists' : 'does not exist (it is created by the first retain)'} (from the bank list).`,
    factText('Stats', statsFact, statsSummary),
    factText('Config', configFact, configSummary),
    factText('Profile', profileFact, (v) => `name ${cleanLine(typeof v['name'] === 'string' ? v['name'] : '', 100)}`),
  ].join('\n');
  return ok(text, { action: 'get', bankId, exists: exists.right, stats: statsFact, config: configFact, profile: profileFact });
};

/**
 * Why this session may not change `target`'s missions, or undefined when it may. Missions are
 * the bank's, not a project's: unlike memories, models and pages (kept apart by the project
 * tag) they steer what the server keeps and answers for every project using the bank. So a
 * session changes them only where the person vouched for the project (`memory.trustedProjects`,
 * the rule of the identity fields) or on the bank that is this folder's alone (isolated-bank
 * mode with the bank named from its own path); a cloned repository's session, or a model its
 * text steers, does not rewrite the shared coding bank's or the personal bank's missions.
 */
const missionRefusal = (ctx: ToolContext, target: BankTarget): string | undefined => {
  if (ctx.loaded.identity.trusted) return undefined;
  if (target.role === 'project' && ctx.scope.mode === 'isolated-bank' && ctx.scope.projectBank.derived) return undefined;
  const whose =
    target.role === 'user'
      ? 'your personal memory bank, which every project with user memory reads'
      : target.role === 'project' && ctx.scope.mode === 'domain-tagged'
        ? 'the coding bank your projects share (scope.mode domain-tagged)'
        : 'a bank this project does not keep for itself alone';
  const shown = displayPath(ctx.loaded.files.user.path, ctx.loaded.home);
  return `${target.bankId} is ${whose}: its missions steer what is kept and answered for every project using it, and this project is not trusted to change them (add "${ctx.loaded.identity.projectDir}" to memory.trustedProjects in ${shown}, or set them in the memory server's control plane)`;
};

const updateMission = async (params: MemoryBankParams, target: BankTarget, ctx: ToolContext): Promise<ToolOutcome> => {
  const bankId = target.bankId;
  const updates: Record<string, string> = {};
  if (params.retainMission !== undefined) updates['retain_mission'] = params.retainMission;
  if (params.reflectMission !== undefined) updates['reflect_mission'] = params.reflectMission;
  if (params.observationsMission !== undefined) updates['observations_mission'] = params.observationsMission;
  if (Object.keys(updates).length === 0) {
    return fail('invalidParams', 'Provide at least one of retainMission, reflectMission, observationsMission. Nothing was changed.', { field: 'retainMission' });
  }
  const refused = missionRefusal(ctx, target);
  if (params.dryRun !== false) {
    return ok(
      [
        `Preview (dryRun): would update missions of ${bankId}:`,
        ...Object.entries(updates).map(([k, v]) => `  ${k}: ${cleanText(v, 300)}`),
        refused === undefined ? 'Nothing was changed. Call again with dryRun:false to apply.' : `Nothing was changed, and applying it would be refused: ${refused}.`,
      ].join('\n'),
      { action: 'update_mission', dryRun: true, bankId, wouldUpdate: updates, ...(refused === undefined ? {} : { refused }) },
    );
  }
  if (refused !== undefined) return fail('rejected', `${refused}. Nothing was changed.`, { field: 'bank' });
  const caps = await loadCapabilities(ctx, 'memory_bank update_mission');
  if (E.isLeft(caps)) return caps.left;
  const gate = missingFeatures(caps.right, [{ flag: 'bankConfig', label: 'bank config (missions)' }]);
  if (gate !== undefined) return gate;
  const o = callOptions(ctx);
  const exists = await runCall(ctx.server.bankExists(bankId, o));
  if (E.isLeft(exists)) return failureOutcome(ctx, `memory_bank update_mission ${bankId}`, exists.left);
  if (!exists.right) {
    return fail('notConfigured', `Bank ${bankId} does not exist, so its missions were not changed (a typo would otherwise create a new bank). Retain into it first, or check the bank id.`, { field: 'bank' });
  }
  const result = await runCall(ctx.server.updateBankConfig(bankId, updates, o));
  if (E.isLeft(result)) return failureOutcome(ctx, `memory_bank update_mission ${bankId}`, result.left);
  return ok(`Updated missions of ${bankId}: ${Object.keys(updates).join(', ')}.`, { action: 'update_mission', dryRun: false, bankId, updated: updates });
};

const handler = async (params: MemoryBankParams, ctx: ToolContext): Promise<ToolOutcome> => {
  const target = resolveBank(ctx.scope, params.bank);
  if (E.isLeft(target)) return fail('notConfigured', `${target.left.message}. Nothing was sent.`, { field: 'bank' });
  return params.action === 'get' ? getBank(target.right.bankId, ctx) : updateMission(params, target.right, ctx);
};

export const memoryBankTool = defineTool<MemoryBankParams>({
  name: 'memory_bank',
  label: 'Memory Bank',
  description:
    'Inspect or configure one memory bank (default: the project bank; aliases project, global, user). get returns exists (from the bank list), stats and config. update_mission sets the retain, reflect and observations missions; it previews unless dryRun is false, and applies only in a project the person trusts (memory.trustedProjects) or to the folder\'s own isolated bank, since a bank\'s missions apply to every project using it.',
  promptSnippet: 'memory_bank: inspect a bank or update its missions (preview first)',
  params: MemoryBankParams,
  handler: withCleanDetails(handler),
});
