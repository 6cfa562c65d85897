/**
 * /memory:doctor: diagnostics a user can act on. Package and runtime, the server (reachable?
 * above the floor? which capabilities?), config files and warnings, the API key as set / not
 * set (never its value), profile and routes, banks, queue, import and activity. No raw
 * retained payload is printed; every string is redacted.
 */
import { startServerCommand } from '../../config/serverStart.js';
import * as E from 'fp-ts/lib/Either.js';
import { redact, redactValue } from '../../config/redact.js';
import { switchedOff } from '../../config/switches.js';
import { resolveApiKey, trustNotice, trustVerdict } from '../../config/trust.js';
import { jsonCopy } from '../../codecs/codecs.js';
import { callOptions, runCall } from '../serverCall.js';
import { buildStatusReport, statusLegend, statusLines } from '../statusReport.js';
import { AWAITING_PROJECT_BANK } from '../../config/scope.js';
import { SOURCE_WORDS } from '../../config/sourceWords.js';
import { queueNextSteps, type CommandContext, type CommandReport } from './commandContext.js';
import type { RuntimeStatusView } from '../context.js';
import { SUPPORT_POLICY, packageInfo } from './packageInfo.js';
import { serverDownError } from '../serverDown.js';
import { describeFailure, failureText } from '../../effects/ports/memoryServer.js';

/** Where no host names its own: the installed package's CLI. */
const DEFAULT_SERVER_COMMAND = 'agent-memory serve';

const FLOOR_TEXT = 'Hindsight 0.8+ with append update_mode support';
const FLOOR_ACTION = 'upgrade the server to 0.8 or later';

export const doctorReport = async (ctx: CommandContext) => {
  const tools = ctx.tools;
  const { config, sources, files, warnings, errors } = tools.loaded;
  const pkg = packageInfo();
  const status = await buildStatusReport(tools, ctx.serverCommand ?? DEFAULT_SERVER_COMMAND);
  const caps = await runCall(tools.server.capabilities(callOptions(tools, Math.min(1500, config.timeoutMs))));
  const key = resolveApiKey(tools.loaded, tools.env);
  const trust = tools.loaded.trust;
  const features = E.isRight(caps) ? caps.right.features : undefined;
  const floorMet = features === undefined ? null : features.append;
  // Named with the commands where the person is: "/memory flush" was said in a shell too.
  const queueSteps = queueNextSteps(status.queue, ctx.queueCommands);
  const queueAction = queueSteps.length === 0 ? undefined : queueSteps.join('\n');
  return {
    enabled: config.enabled,
    integration: {
      packageVersion: pkg.version,
      userAgent: pkg.userAgent,
      runtime: { node: process.versions.node, supported: SUPPORT_POLICY },
      baseUrl: redact(tools.server.baseUrl),
      baseUrlSource: sources.baseUrl,
      clientPackage: 'built-in Hindsight HTTP client',
      clientRange: '^0.9.0',
    },
    health: status.health,
    ...(status.healthCause === undefined ? {} : { healthCause: status.healthCause }),
    // Which trust rule applied (src/config/trust.ts) and, when memory is off by it, how to trust.
    trust: {
      rule: trust.rule,
      // A shell command has no session and no pi to ask (src/hosts/cli/inspect.ts).
      verdict: trustVerdict(trust, tools.session !== undefined),
      memoryAllowed: trust.memoryAllowed,
      origin: trust.origin,
      reason: trust.reason,
      ...(trust.remedy === undefined ? {} : { remedy: trust.remedy }),
      ...(trust.hostTrusted === undefined ? {} : { hostTrusted: trust.hostTrusted }),
    },
    ...(status.healthFailure !== undefined ? { healthFailure: status.healthFailure } : E.isLeft(caps) ? { healthFailure: caps.left._tag } : {}),
    server: E.isRight(caps)
      ? {
          apiVersion: caps.right.apiVersion,
          embedded: caps.right.embedded,
          features: caps.right.features,
          floor: FLOOR_TEXT,
          floorMet,
          ...(floorMet === false ? { action: `Automatic retain is unsupported on this server: ${FLOOR_ACTION}.` } : {}),
        }
      : { error: redact(describeFailure(caps.left)), floor: FLOOR_TEXT, floorMet: null },
    ...(config.apiKeyEnv === undefined ? {} : { apiKeyEnv: config.apiKeyEnv }),
    authentication:
      key._tag === 'key'
        ? { state: 'API key set', from: key.from }
        : key._tag === 'withheld'
          ? { state: 'API key withheld', reason: redact(key.reason) }
          : { state: 'no API key', reason: key.reason },
    config: {
      userFile: { path: files.user.path, exists: files.user.exists },
      projectFile: { path: files.project.path, exists: files.project.exists },
      errors: errors.map((e) => redact(e.message)),
      warnings: warnings.map((w) => redact(w.message)),
    },
    // A switch that keeps recall or retain off is said, with where it was set (never `ready`).
    switchedOff: switchedOff(config, sources, trust.userFile).notes,
    memoryProfile: config.memoryProfile,
    scopeMode: config.scopeMode,
    routes: {
      recall: tools.scope.automatic.read.map((b) => `${b.role}:${b.bankId}`),
      autoRetain: tools.scope.automatic.write.map((b) => `${b.role}:${b.bankId}`)[0] ?? null,
      explicitWrite: tools.scope.explicit.write.map((b) => `${b.role}:${b.bankId}`),
      explicitUserWrite: tools.scope.explicit.writeGlobal === null ? null : tools.scope.explicit.writeGlobal.bankId,
    },
    banks: status.banks,
    project: status.project,
    setup: { complete: status.setupComplete, state: status.setup.state, ...(status.setupHint === undefined ? {} : { hint: status.setupHint }) },
    queue: { ...status.queue, path: redact(config.queuePath), ...(queueAction === undefined ? {} : { action: queueAction }) },
    import: tools.status?.().import ?? { state: 'never run in this project' },
    activity: tools.status?.().session ?? { state: 'no session' },
    sync: status.sync,
    fields: status.fields,
    problems: status.problems,
  };
};

/**
 * What makes the doctor fail (exit 1 from the shell): the server unreachable, hung past the
 * probe deadline, refusing the key, below the version floor or failing; a config file that
 * could not be read. Each finding says what to do.
 */
const doctorErrors = (report: Awaited<ReturnType<typeof doctorReport>>, serverCommand: string): string[] => {
  const errors: string[] = [];
  const failure = report.healthFailure;
  const start = startServerCommand(serverCommand, report.integration.baseUrl);
  // The next step is the shared describer's, so the doctor, the hub, the status lines and the shell's flush and import agree.
  const down = serverDownError(failure, report.integration.baseUrl, serverCommand);
  if (down !== undefined) errors.push(down);
  else if (failure === 'unauthorized' || failure === 'forbidden') {
    // The variable is known here: "the variable named by memory.apiKeyEnv" made the person look it up.
    const next = report.apiKeyEnv === undefined ? (failureText({ _tag: failure }, start).next ?? '') : `set ${report.apiKeyEnv} to the key the server was started with (here it is ${'from' in report.authentication ? 'set to another key' : 'not set'}); pi reads it when it starts`;
    errors.push(`server refused the API key (HTTP ${failure === 'unauthorized' ? 401 : 403}): ${next}`);
  }
  else if (failure === 'blocked') errors.push(`memory is off for this project: ${report.trust.reason}${report.trust.remedy === undefined ? '' : ` (${report.trust.remedy})`}`);
  else if (failure !== undefined) errors.push(`server check failed: ${report.health}`);
  if ('floorMet' in report.server && report.server.floorMet === false) errors.push(`server is below the floor (${FLOOR_TEXT}): ${FLOOR_ACTION}`);
  for (const e of report.config.errors) errors.push(`config file unreadable: ${e}`);
  return errors;
};

const ago = (at: number, now: number): string => {
  const s = Math.max(0, Math.round((now - at) / 1000));
  return s < 60 ? `${s}s ago` : s < 3600 ? `${Math.round(s / 60)} min ago` : `${Math.round(s / 3600)} h ago`;
};

/** The last automatic recall and retain of this session, in words: when, how it went, how many. */
const activityLine = (session: RuntimeStatusView['session'], now: number): string => {
  const recall = session?.lastRecall;
  const retain = session?.lastRetain;
  const recallText = recall === undefined ? 'no recall yet' : `last recall ${ago(recall.at, now)}: ${recall.outcome}, ${recall.count} memor${recall.count === 1 ? 'y' : 'ies'}`;
  const retainText = retain === undefined ? 'no retain yet' : `last retain ${ago(retain.at, now)}: ${retain.outcome}, ${retain.count} message(s)`;
  return `Activity (this session): ${recallText}; ${retainText}`;
};

/**
 * Banks as a person reads them ("bank coding (project)"): the JSON's `project:coding` reads as
 * the project tag, which here is another thing (`project:<id>`).
 */
const routeWords = (banks: readonly { readonly role: string; readonly bankId: string }[]): string =>
  banks.length === 0 ? 'nothing' : banks.map((b) => `bank ${b.bankId} (${b.role === 'project' ? 'project' : 'personal'})`).join(', ');

/** Status lines the doctor's own lines already say (server, health, version; memory on or off). */
/** The key's line: a reason that already says the state stands alone ("no API key (no API key configured)" before). */
const authenticationText = (auth: { readonly state: string; readonly from: string } | { readonly state: string; readonly reason: string }): string => {
  if ('from' in auth) return `${auth.state} (${auth.from})`;
  return auth.reason.startsWith(auth.state) ? auth.reason : `${auth.state} (${auth.reason})`;
};

const SAID_ABOVE: ReadonlySet<string> = new Set(['baseUrl', 'health', 'serverVersion', 'enabled']);

export const doctorCommand = async (ctx: CommandContext): Promise<CommandReport> => {
  const report = await doctorReport(ctx);
  const tools = ctx.tools;
  const server = report.server;
  const fields = report.fields.filter((f) => !SAID_ABOVE.has(f.key));
  const setupShown = fields.some((f) => f.key === 'setup' && f.tone === 'warn');
  // Said once: the Setup line names what to do, so neither the hint nor the scope's note repeats it.
  const problems = report.problems.filter((p) => !(setupShown && p === AWAITING_PROJECT_BANK));
  const lines = [
    `agent-memory doctor (${report.integration.userAgent}, node ${report.integration.runtime.node}; supports node ${SUPPORT_POLICY.node}, npm ${SUPPORT_POLICY.npm}, typebox ${SUPPORT_POLICY.typebox})`,
    // Unreachable: why in a few words; the error line at the end says what to do.
    `Server: ${report.integration.baseUrl} (${SOURCE_WORDS[report.integration.baseUrlSource]}) — ${report.healthCause === undefined ? report.health : `unreachable (${report.healthCause})`}`,
    'apiVersion' in server
      ? `Server version: ${server.apiVersion}${server.embedded ? ' (embedded)' : ''}; floor ${FLOOR_TEXT}: ${server.floorMet ? 'met' : `NOT met — ${FLOOR_ACTION}`}`
      : `Server version: unknown (${report.healthCause === undefined ? server.error : 'no answer'}); floor ${FLOOR_TEXT}`,
    `Client: ${report.integration.clientPackage} ${report.integration.clientRange}`,
    // The rule line says where memory goes; when memory is off by it, this says what to do.
    ...(report.trust.memoryAllowed ? [] : [`Trust: ${trustNotice(tools.loaded.trust) ?? report.trust.reason} (rule ${report.trust.rule})`]),
    // Worded without `key:` so the redactor, which hides any `key: value`, leaves the line readable.
    `Authentication: ${authenticationText(report.authentication)}`,
    `Trust rule: ${redact(report.trust.verdict)}`,
    `Memory: ${!report.enabled ? 'off (enabled is false, or trust refused the project file)' : report.switchedOff.length === 0 ? `automatic recall and retain on${report.setup.state === 'unconfigured' ? ', once set up' : ''}` : `${report.switchedOff.join('; ')}. The user turns it back on in /memory settings or by editing that file`}`,
    // A shell's doctor has no session: "no recall yet" would read as a fault.
    ...(tools.status?.().session === undefined ? [] : [activityLine(tools.status?.().session, tools.clock.now())]),
    // Not set up, the banks are placeholders nothing goes to: the Setup line says what to run.
    report.setup.state === 'unconfigured'
      ? `Profile: ${report.memoryProfile}; scope ${report.scopeMode}; not set up, so nothing is recalled or saved (see Setup)`
      : `Profile: ${report.memoryProfile}; scope ${report.scopeMode}; recall from ${routeWords(tools.scope.automatic.read)}; automatic retain to ${routeWords(tools.scope.automatic.write.slice(0, 1))}`,
    ...statusLines(fields),
    ...statusLegend(fields),
    ...(report.setup.hint === undefined || setupShown ? [] : [report.setup.hint]),
    ...('action' in report.queue && report.queue.action !== undefined ? report.queue.action.split('\n').map((step) => `Queue: ${step}`) : []),
    ...report.config.errors.map((e) => `config error: ${e}`),
    ...report.config.warnings.map((w) => `config warning: ${w}`),
    ...problems.map((p) => `note: ${p}`),
  ];
  const errors = doctorErrors(report, ctx.serverCommand ?? 'agent-memory serve');
  const warn = !report.trust.memoryAllowed || report.queue.deadLetters > 0 || report.queue.state === 'paused';
  const text = [...lines, ...errors.map((e) => `error: ${e}`)].map(redact).join('\n');
  return {
    level: errors.length > 0 ? 'error' : warn ? 'warning' : 'info',
    text,
    details: redactValue(jsonCopy({ ...report, errors })),
  };
};
