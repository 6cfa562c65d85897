/** A route module: one area of the API (banks, retain, recall…), its routes and its async operation handlers. */
import type { Route } from '../http/router.js';
import type { BatchOperationHandler, OperationHandler } from '../operations.js';
import type { ServerContext } from '../context.js';

export interface RouteModule {
  readonly routes: readonly Route[];
  /** Async operation handlers by task type, given the server context at start-up. */
  readonly operations?: (server: ServerContext) => Readonly<Record<string, OperationHandler>>;
  /** Async operation handlers that take a bank's waiting operations of their type together. */
  readonly batchOperations?: (server: ServerContext) => Readonly<Record<string, BatchOperationHandler>>;
  /** Stops the module's own timers or workers; called when the server closes, before the store closes. */
  readonly close?: (server: ServerContext) => Promise<void>;
}
