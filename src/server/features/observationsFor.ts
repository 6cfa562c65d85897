/**
 * One observation consolidator per running server, created on first use. Route modules
 * reach it through the server context they already hold, so wiring it needs no new field
 * in the context; `closeObservations` stops its timers when the server closes.
 */
import type { ServerContext } from '../context.js';
import { createConsolidator } from './consolidator.js';
import type { Consolidator } from './consolidator.js';
import { queueRefreshesAfterConsolidation } from './refreshQueue.js';

const consolidators = new WeakMap<ServerContext, Consolidator>();

export const observationsFor = (server: ServerContext): Consolidator => {
  let consolidator = consolidators.get(server);
  if (consolidator === undefined) {
    consolidator = createConsolidator({
      store: server.store,
      nowIso: server.nowIso,
      writesWaiting: (bankId) => server.operations.waiting(bankId),
      // Models and pages with refresh_after_consolidation follow the observations they read.
      onConsolidated: (bankId) => queueRefreshesAfterConsolidation(server, bankId),
    });
    consolidators.set(server, consolidator);
  }
  return consolidator;
};

/** The server's consolidator if something has used it (a metrics scrape does not start one). */
export const observationsIfStarted = (server: ServerContext): Consolidator | undefined => consolidators.get(server);

/** Waits for a running consolidation and stops the background timers. */
export const closeObservations = async (server: ServerContext): Promise<void> => {
  const consolidator = consolidators.get(server);
  consolidators.delete(server);
  await consolidator?.close();
};
