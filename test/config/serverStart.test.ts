/** The command printed to start the embedded server must start it where memory looks. */
import { describe, expect, it } from 'vitest';
import { startServerCommand } from '../../src/config/serverStart.js';

describe('startServerCommand', () => {
  it('adds --port for any loopback port but the default 8888', () => {
    expect(startServerCommand('node /x/serve.mjs', 'http://localhost:8888')).toBe('node /x/serve.mjs');
    expect(startServerCommand('node /x/serve.mjs', 'http://127.0.0.1:38123')).toBe('node /x/serve.mjs --port 38123');
    expect(startServerCommand('agent-memory serve', 'http://[::1]:9000/')).toBe('agent-memory serve --port 9000');
    expect(startServerCommand('agent-memory serve', 'http://localhost')).toBe('agent-memory serve --port 80');
  });

  it('names no command where a server started here cannot answer', () => {
    expect(startServerCommand('agent-memory serve', 'http://memory.example.com:8888')).toBeUndefined();
    expect(startServerCommand('agent-memory serve', 'https://localhost:8888')).toBeUndefined();
    expect(startServerCommand('agent-memory serve', 'not a url')).toBeUndefined();
  });
});
