/**
 * A loopback server with just enough of the Hindsight API for the runtime (version, bank list,
 * retain) that answers every call and keeps nothing, so a benchmark measures only the client.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export const startRetainSink = async (bankId: string): Promise<{ readonly url: string; readonly server: Server }> => {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const url = req.url ?? '';
      const body = url.startsWith('/version')
        ? { api_version: '0.9.1' }
        : url.includes('/memories')
          ? { success: true, bank_id: bankId, items_count: 1, async: false }
          : url.startsWith('/v1/default/banks')
            ? { banks: [{ bank_id: bankId, name: bankId }] }
            : {};
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
};
