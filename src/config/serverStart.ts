/**
 * The command that starts the embedded server where `baseUrl` points, or undefined when a
 * server started on this machine cannot answer there (another host, https). The embedded
 * server listens on 127.0.0.1:8888 by default, so a URL on another loopback port needs
 * `--port`: without it, the printed command started a server nothing was pointed at.
 */
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

export const startServerCommand = (command: string, baseUrl: string): string | undefined => {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' || !(LOOPBACK.has(url.hostname) || /^127\.\d+\.\d+\.\d+$/.test(url.hostname))) return undefined;
  const port = url.port === '' ? '80' : url.port;
  return port === '8888' ? command : `${command} --port ${port}`;
};

/** A path or word as one shell word: left bare when it has nothing a shell reads, else double-quoted. */
export const shellWord = (word: string): string => (/^[\w./@:+=-]+$/.test(word) ? word : `"${word.replace(/(["\\$`])/g, '\\$1')}"`);
