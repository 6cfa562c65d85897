/** Opens the memory runtime for the current directory, runs one action, always closes it. */
import { createMemoryRuntime, type MemoryRuntime } from '../memoryRuntime.js';

/** `command`: the `agent-memory` command running (`import`), which names the run in the memory browser. */
export const withRuntime = async <T>(cwd: string, command: string, action: (runtime: MemoryRuntime) => Promise<T>, o: { readonly trustQueue?: boolean } = {}): Promise<T> => {
  const runtime = await createMemoryRuntime({ cwd, command, ...o });
  try {
    return await action(runtime);
  } finally {
    await runtime.close();
  }
};
