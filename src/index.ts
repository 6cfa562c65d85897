/**
 * agent-memory's public API, every name listed: a host runtime, config loading and redaction,
 * the tools and commands, the retain queue over its ports, the gates' machines, the server
 * client, the embedded server and the machine diagrams. Anything not named here is internal.
 */
export { createMemoryRuntime, type MemoryRuntime, type MemoryRuntimeOptions, type RuntimeStatus, type HostInput } from './hosts/memoryRuntime.js';

export { decodeWith, type DecodeError, type DecodeIssue } from './codecs/decode.js';
export { JsonValue } from './codecs/codecs.js';

export { loadConfig, type ConfigFileError, type LoadConfigOptions, type LoadedConfig } from './config/load.js';
export { configFields, MemoryConfig } from './config/fields.js';
export { resolveScope, type Scope } from './config/scope.js';
export { redact, redactValue } from './config/redact.js';

export { executeForHost, findTool, toolCatalogue, ToolCallError, type CatalogueEntry, type HostToolResult } from './tools/catalogue.js';
export type { ToolContext, ToolSession } from './tools/context.js';
export type { ToolError, ToolErrorCode, ToolOutcome, ToolResult } from './tools/result.js';
export { runTool, type ToolDefinition } from './tools/tool.js';
export { commandCatalogue, type CommandEntry } from './tools/commands/index.js';
export type { CommandContext, CommandReport } from './tools/commands/commandContext.js';
export { createToolContext } from './hosts/toolContext.js';

export { openRetainQueue } from './effects/retainDelivery/queue.js';
export type { RetainQueue, OpenRetainQueueOptions, QueueStatus, QueueState, FlushReport, RetainJob, RetainItem, DeadLetter, NewRetainJob } from './effects/retainDelivery/queue.js';
export { fileRetainQueuePorts, jsonlRetainQueueStore, type JsonlRetainQueueStoreOptions } from './hosts/retainQueueStore.js';
export type { RetainQueueStore, RetainQueueStoreOpener, SharedJournal, LeasePort, HeldLease, DeliveryReceipt, ForeignRecords } from './effects/ports/retainQueueStore.js';
export type { IdsPort } from './effects/ports/ids.js';

export { retainDeliveryMachine } from './machines/retainDelivery/machine.js';
export { sessionMachine } from './machines/session/machine.js';
export { setupMachine } from './machines/setup/machine.js';
export { startGate, type GateRuntime, type StartGateOptions } from './effects/kernel/startGate.js';
export type { JournalPort, JournalEntry, JournalDamage, JournalLoad } from './effects/ports/journal.js';
export { systemClock, type ClockPort } from './effects/ports/clock.js';
export type { TracePort, TraceRecord, TraceKind } from './effects/ports/trace.js';

export type { MemoryServer, ServerFailure, CallOptions } from './effects/ports/memoryServer.js';
export { failureClass, describeFailure } from './effects/ports/memoryServer.js';
export { createMemoryServer } from './adapters/server/client.js';
export { jsonlTrace, memoryTrace } from './adapters/trace/jsonlTrace.js';
export { startEmbeddedServer, type EmbeddedServer, type EmbeddedServerOptions } from './server/index.js';

export { machineGraph, type MachineGraph } from './viz/machineGraph.js';
export { toMermaid } from './viz/mermaid.js';
export { toDot } from './viz/dot.js';
