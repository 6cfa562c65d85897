/** Opens the memory runtime for the current directory, runs one action, always closes it. */
import { createMemoryRuntime, type MemoryRuntime } from '../memoryRuntime.js';

export const withRuntime = async <T>(cwd: string, action: (runtime: MemoryRuntime) => Promise<T>, o: { readonly trustQueue?: boolean } = {}): Promise<T> => {
  const runtime = await createMemoryRuntime({ cwd, ...o });
  try {
    return await action(runtime);
  } finally {
    await runtime.close();
  }
};
