/**
 * A server that does not answer, in the doctor's words with the next step: the command that
 * starts the embedded server where the URL points (`startServerCommand`), else to check the
 * server there. The doctor says it, and so do the shell's `flush` and `import` when they stop
 * for want of an answer (they said "check that the server there is running" without the command).
 */
import * as E from 'fp-ts/lib/Either.js';
import { startServerCommand } from '../config/serverStart.js';
import { failureText, type MemoryServer } from '../effects/ports/memoryServer.js';
import { runCall } from './serverCall.js';

/** The sentence for a health failure that is no answer (`unreachable`, `circuitOpen`, `timeout`); undefined for any other. */
export const serverDownError = (failure: string | undefined, baseUrl: string, serverCommand: string): string | undefined => {
  const start = startServerCommand(serverCommand, baseUrl);
  if (failure === 'unreachable' || failure === 'circuitOpen') return `server unreachable at ${baseUrl}: ${failureText({ _tag: 'unreachable', message: '' }, start).next ?? ''}`;
  if (failure === 'timeout') return `server at ${baseUrl} did not answer within the probe deadline: ${failureText({ _tag: 'timeout', message: '' }, start).next ?? ''}`;
  return undefined;
};

/** A sentence of its own. */
export const capitalized = (text: string): string => `${text.charAt(0).toUpperCase()}${text.slice(1)}`;

/** How long the shell's flush and import wait for the one probe (the status probe's bound). */
export const SERVER_PROBE_MS = 1500;

/** Asks the server once (as the doctor's probe does) and says so when it does not answer. */
export const probeServerDown = async (server: MemoryServer, serverCommand: string, timeoutMs: number): Promise<string | undefined> => {
  const answer = await runCall(server.capabilities({ deadline: Date.now() + timeoutMs }));
  return E.isLeft(answer) ? serverDownError(answer.left._tag, server.baseUrl, serverCommand) : undefined;
};
