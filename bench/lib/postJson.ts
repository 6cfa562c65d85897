/** A keep-alive JSON POST over loopback for benches: status and parsed body. */
import { Agent, request } from 'node:http';

export const jsonPoster = (): { post: (url: string, body: unknown) => Promise<{ status: number; body: unknown }>; close: () => void } => {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const post = (url: string, value: unknown): Promise<{ status: number; body: unknown }> =>
    new Promise((resolve, reject) => {
      const body = JSON.stringify(value);
      const req = request(url, { method: 'POST', agent, headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) } }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text.length === 0 ? null : (JSON.parse(text) as unknown) }));
      });
      req.on('error', reject);
      req.end(body);
    });
  return { post, close: () => agent.destroy() };
};

/**
 * A keep-alive POST of a body already serialised, answering the status only (the body is
 * drained): for benches that time many requests. `fresh` drops the pooled socket, so a socket to
 * a closed server is never handed to a new one on the same port.
 */
export const statusPoster = (): { post: (url: string, body: string) => Promise<number>; fresh: () => void } => {
  let agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const post = (url: string, body: string): Promise<number> =>
    new Promise((resolve, reject) => {
      const req = request(url, { method: 'POST', agent, headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) } }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', reject);
      req.end(body);
    });
  const fresh = (): void => {
    agent.destroy();
    agent = new Agent({ keepAlive: true, maxSockets: 1 });
  };
  return { post, fresh };
};
