/**
 * Attack: a generated secret survives into a file, trace, error or output (issue 12, item 1).
 * For any key value the config names (any characters, quotes and backslashes included), once
 * the real config loader has loaded the config, no writer puts the value on disk or in an
 * error: the queue journal line (encoded, and as the synchronous append writes it), a dead-letter append, a trace, a JSON
 * sidecar, a tool result or error, and a server failure's description.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { redact, redactUnknown, redactValue } from '../../src/config/redact.js';
import { openJsonlJournal } from '../../src/adapters/queue/jsonlJournal.js';
import { appendDurable } from '../../src/adapters/queue/queueFiles.js';
import { encodeRecord } from '../../src/adapters/queue/recordCodec.js';
import { jsonlTrace } from '../../src/adapters/trace/jsonlTrace.js';
import { writeJsonFile } from '../../src/adapters/fs/stateFiles.js';
import { describeFailure } from '../../src/effects/ports/memoryServer.js';
import { fail, ok } from '../../src/tools/result.js';
import { makeDirs, leaks } from './support.js';

// Printable ASCII without whitespace and brackets (a `[`/`]` next to `[REDACTED]` could spell
// the secret anew), at least 8 characters: the redactor's floor for values.
const secretChar = fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789!"#$%&\'()*+,-./:;<=>?@\\^_`{|}~'.split(''));
const secret = fc.array(secretChar, { minLength: 8, maxLength: 40 }).map((cs) => cs.join(''));
const filler = fc.string({ maxLength: 30 });

describe('redaction by value (property)', () => {
  it('no generated secret named by the config survives any writer', async () => {
    await fc.assert(
      fc.asyncProperty(secret, filler, filler, fc.constantFrom('env', 'direct'), async (key, before, after, how) => {
        const dirs = makeDirs(
          how === 'env' ? { memory: { apiKeyEnv: 'SOME_SERVICE_KEY' } } : { memory: { apiKeyDirect: key } },
          { banks: { project: { bankId: 'prop-bank' } } },
        );
        loadConfig({ cwd: dirs.cwd, home: dirs.home, env: how === 'env' ? { SOME_SERVICE_KEY: key } : {} });
        const text = `${before}${key}${after}`;
        const memoryDir = path.join(dirs.cwd, '.pi', 'memory');
        // Queue journal line (checksummed after redaction), a job appended the way agent_end queues it, dead letters.
        const { line } = encodeRecord({ type: 'retain.failed', at: '2026-01-01T00:00:00.000Z', payload: { reason: text, nested: { [text]: [text] } } }, 1);
        const journal = await openJsonlJournal({ path: path.join(memoryDir, 'retain-queue.jsonl') });
        journal.appendSync([{ type: 'retain.enqueued', at: '2026-01-01T00:00:00.000Z', payload: { type: 'retain.enqueued', jobs: [{ item: { content: text } }] } }]);
        await appendDurable(path.join(memoryDir, 'dead.jsonl'), Buffer.from(`${JSON.stringify({ reason: text })}\n`));
        jsonlTrace({ path: path.join(memoryDir, 'trace', 't.jsonl'), redact: redactValue }).write({ gate: 'g', kind: 'k', at: 'now', data: { text } } as never);
        await writeJsonFile(path.join(memoryDir, 'last-recall.json'), { query: text, error: text });
        expect(line).not.toContain(key);
        expect(leaks(memoryDir, key)).toEqual([]);
        expect(readFileSync(path.join(memoryDir, 'retain-queue.jsonl'), 'utf8')).toContain('[REDACTED]');
        // Errors and tool output.
        const outcomes = [
          redact(describeFailure({ _tag: 'serverError', status: 500, detail: text })),
          redact(describeFailure({ _tag: 'unauthorized', detail: text })),
          redactUnknown(new Error(text)),
          JSON.stringify(ok(text, { text })),
          JSON.stringify(fail('server', text, { details: { text } })),
        ];
        for (const out of outcomes) expect(out).not.toContain(key);
      }),
      { numRuns: 60 },
    );
  }, 120_000);

  it('the secret a project file names (even a refused one) is hidden too', () => {
    const dirs = makeDirs({ memory: {} }, { memory: { apiKeyEnv: 'AWS_SECRET_ACCESS_KEY' } });
    const aws = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYzz9Q8mExAMPLE';
    loadConfig({ cwd: dirs.cwd, home: dirs.home, env: { AWS_SECRET_ACCESS_KEY: aws } });
    expect(redact(`leaked ${aws} here`)).toBe('leaked [REDACTED] here');
  });

  it('short values are left to the shape rules (a 3-letter "key" would eat ordinary words)', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'am-sec-short-'));
    loadConfig({ cwd: dir, home: dir, env: { MEMORY_API_KEY: 'the' } });
    expect(redact('the cat')).toBe('the cat');
  });
});
