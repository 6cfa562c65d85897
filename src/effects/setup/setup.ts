/**
 * The setup gate's effects: probe the server (capabilities, bank existence by exact id in
 * the bank list), create banks known to be missing, retry while degraded. Outcomes go back
 * to the gate as events; nothing here throws or blocks the host.
 */
import * as E from 'fp-ts/lib/Either.js';
import type { MemoryConfig } from '../../config/fields.js';
import type { LoadedConfig } from '../../config/load.js';
import { redact } from '../../config/redact.js';
import type { Scope } from '../../config/scope.js';
import { trustNotice } from '../../config/trust.js';
import { startServerCommand } from '../../config/serverStart.js';
import { banksEnsureFailed, probeFailed, probeSucceeded, RETRY_AFTER_MS } from '../../machines/setup/decide.js';
import { SetupEvent, setupEvents, type SetupEventInput } from '../../machines/setup/events.js';
import { setupMachine, type SetupMachine } from '../../machines/setup/machine.js';
import type { ClockPort } from '../ports/clock.js';
import type { JournalPort } from '../ports/journal.js';
import { describeFailure, type MemoryServer } from '../ports/memoryServer.js';
import type { TracePort } from '../ports/trace.js';
import { startGate, type GateRuntime } from '../kernel/startGate.js';

/** How long one probe may take: setup never waits on a slow server for long. */
const PROBE_TIMEOUT_MS = 5_000;
export { RETRY_AFTER_MS };

export type SetupGate = GateRuntime<SetupMachine>;

export interface SetupFacts {
  readonly configured: boolean;
  /** The project file moved memory somewhere the user does not trust: memory is off. */
  readonly untrusted?: boolean;
  readonly reason?: string;
  readonly banks: readonly string[];
}

/**
 * Is this project set up for automatic memory? Domain-tagged mode shares one coding bank
 * across projects, so it needs that bank named explicitly; isolated-bank mode may derive it,
 * once any sign of setup exists (setupComplete, a project config file, a bank id).
 */
export const setupFacts = (loaded: Pick<LoadedConfig, 'config' | 'files'> & Partial<Pick<LoadedConfig, 'trust'>>, scope: Scope): SetupFacts => {
  const config: MemoryConfig = loaded.config;
  const banks = [
    ...(scope.projectBank.active ? [scope.projectBank.bankId] : []),
    ...(scope.userBank.active && scope.userBank.bankId !== null ? [scope.userBank.bankId] : []),
  ];
  const distrust = loaded.trust === undefined ? undefined : trustNotice(loaded.trust);
  if (distrust !== undefined) return { configured: false, untrusted: true, banks, reason: distrust };
  const soft = config.setupComplete || config.projectBankId !== undefined || config.globalBankId !== undefined || loaded.files.project.exists;
  if (scope.projectBank.active && scope.mode === 'domain-tagged' && config.projectBankId === undefined) {
    return {
      configured: false,
      banks,
      reason:
        'memory is not set up in this project yet: it needs the bank that holds all your projects\' memory; run /memory setup in pi (or set banks.project.bankId in .pi/memory.json)',
    };
  }
  if (!soft) {
    return { configured: false, banks, reason: 'memory is not set up in this project yet: run /memory setup in pi (or set setupComplete in .pi/memory.json)' };
  }
  if (banks.length === 0) return { configured: false, banks, reason: scope.problems.join('; ') || 'no bank is active for this profile' };
  return { configured: true, banks };
};

export interface StartSetupGateOptions {
  readonly server: MemoryServer;
  readonly clock: ClockPort;
  readonly journal?: JournalPort;
  readonly trace?: TracePort;
  /** The command that starts the embedded server here: a server that does not answer is described with it. */
  readonly serverCommand?: string;
}

export const startSetupGate = async (options: StartSetupGateOptions): Promise<SetupGate> => {
  const { server, clock } = options;
  // The next step of an unreachable server names the command that starts one where the URL points.
  const start = options.serverCommand === undefined ? undefined : startServerCommand(options.serverCommand, server.baseUrl);
  const send = (event: SetupEventInput): void => {
    void gate.dispatch(event);
  };
  let cancelRetry: (() => void) | undefined;

  const probe = async (banks: readonly string[]): Promise<void> => {
    const call = { deadline: clock.now() + PROBE_TIMEOUT_MS };
    const failed = (reason: string): void => send(probeFailed(clock.now(), redact(reason)));
    const caps = await server.capabilities(call)();
    if (E.isLeft(caps)) return failed(describeFailure(caps.left, start));
    const exists: { bankId: string; exists: boolean }[] = [];
    for (const bankId of banks) {
      const found = await server.bankExists(bankId, call)();
      if (E.isLeft(found)) return failed(describeFailure(found.left, start));
      exists.push({ bankId, exists: found.right });
    }
    send(probeSucceeded(clock.now(), { apiVersion: caps.right.apiVersion, append: caps.right.features.append, exists }));
  };

  const ensure = async (banks: readonly string[]): Promise<void> => {
    for (const bankId of banks) {
      const made = await server.ensureBank(bankId, { name: bankId }, { deadline: clock.now() + PROBE_TIMEOUT_MS })();
      if (E.isLeft(made)) {
        send(banksEnsureFailed(clock.now(), redact(`could not create bank ${bankId}: ${describeFailure(made.left, start)}`)));
        return;
      }
    }
    send(setupEvents.banksEnsured({ at: clock.now() }));
  };

  const machine = setupMachine.provide({
    actions: {
      probe: ({ context }) => {
        void probe(context.banks);
      },
      ensureBanks: (_, params) => {
        void ensure(params.banks);
      },
      scheduleRetry: (_, params) => {
        cancelRetry?.();
        cancelRetry = clock.setTimer(params.at, () => send(setupEvents.probeRetry({ at: clock.now() })));
      },
    },
  });
  const gate: SetupGate = await startGate({
    name: 'setup',
    machine,
    events: SetupEvent,
    clock,
    ...(options.journal === undefined ? {} : { journal: options.journal }),
    ...(options.trace === undefined ? {} : { trace: options.trace }),
  });
  const stop = gate.stop;
  return {
    ...gate,
    stop: async () => {
      cancelRetry?.();
      await stop();
    },
  };
};
