/** Opens the memory runtime for the current directory, runs one action, always closes it. */
import { createMemoryRuntime, type MemoryRuntime } from '../memoryRuntime.js';
import type { TakeBack } from '../../adapters/queue/queueOwner.js';
import { cliTakeBack } from './selfCommand.js';

/** `command`: the `agent-memory` command running (`import`), which names the run in the memory browser. */
export const withRuntime = async <T>(cwd: string, command: string, action: (runtime: MemoryRuntime) => Promise<T>, o: { readonly trustQueue?: boolean; readonly takeBack?: TakeBack } = {}): Promise<T> => {
  const runtime = await createMemoryRuntime({ cwd, command, takeBack: cliTakeBack(cwd), ...o });
  try {
    return await action(runtime);
  } finally {
    await runtime.close();
  }
};
