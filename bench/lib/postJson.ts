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
