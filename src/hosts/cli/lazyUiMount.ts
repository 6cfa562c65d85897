/**
 * The memory browser as `serve` mounts it: built at its first request, not at start (building it
 * loads the HTTP client and the browser's modules, about 10 MB resident, which a server nobody
 * browses never needs). A build that fails answers 503 with its reason and is tried again at the
 * next request: a passing fault (a file briefly unreadable, too many open files) must not turn
 * the browser off until the server restarts.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

export interface UiMountHandler {
  handle(req: IncomingMessage, res: ServerResponse): Promise<void>;
  close(): void;
}

export interface UiMount {
  readonly prefix: '/ui';
  handle(req: IncomingMessage, res: ServerResponse): Promise<void>;
  /** The server listens at `at`: the browser may be built from now on. */
  listening(at: { readonly url: string; readonly port: number }): void;
  /** Closes the browser if it was built (its live streams and watchers). */
  close(): Promise<void>;
}

const answer503 = (res: ServerResponse, detail: string): void => {
  res.writeHead(503, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify({ detail }));
};

export const lazyUiMount = (build: (at: { readonly url: string; readonly port: number }) => Promise<UiMountHandler>, report: (message: string) => void): UiMount => {
  let address: { readonly url: string; readonly port: number } | undefined;
  let built: Promise<UiMountHandler> | undefined;
  return {
    prefix: '/ui',
    listening: (at) => {
      address = at;
    },
    handle: async (req, res) => {
      if (address === undefined) return answer503(res, 'the memory browser is starting; reload in a moment');
      const pending = (built ??= build(address));
      let handler: UiMountHandler;
      try {
        handler = await pending;
      } catch (error) {
        // Only the request that saw this build fail clears it, so concurrent ones share one retry.
        if (built === pending) built = undefined;
        const message = `the memory browser at /ui could not start: ${error instanceof Error ? error.message : String(error)}; reload to try again`;
        report(message);
        return answer503(res, message);
      }
      return handler.handle(req, res);
    },
    close: async () => {
      const handler = await built?.catch(() => undefined);
      handler?.close();
    },
  };
};
