/**
 * Every message names only what exists: each string literal in src that names a slash
 * command (`/memory:doctor`), a `/memory` action, an `agent-memory` CLI command or a
 * `memory_*` tool is collected (with the TypeScript parser, so comments do not count) and
 * checked against what pi registers, what the hub answers and what the CLI runs.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import * as path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { commands as cliCommands } from '../../../src/hosts/cli/commands.js';
import { HUB_ACTIONS, commandCatalogue, memoryHubCommand } from '../../../src/tools/commands/index.js';
import { toolCatalogue } from '../../../src/tools/catalogue.js';

const src = path.resolve(__dirname, '../../../src');

const files = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? files(full) : full.endsWith('.ts') ? [full] : [];
  });

/** Every string a person can read: string literals and the text parts of template literals. */
const literals = (file: string): string[] => {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const out: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) return;
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateHead(node) || ts.isTemplateMiddle(node) || ts.isTemplateTail(node)) out.push(node.text);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
};

const all = files(src).flatMap((file) => literals(file).map((text) => ({ file: path.relative(src, file), text })));

const found = (re: RegExp): { file: string; name: string }[] =>
  all.flatMap(({ file, text }) => [...text.matchAll(re)].map((m) => ({ file, name: m[1] ?? '' })));

describe('messages name only commands, actions and tools that exist', () => {
  it('collects what the messages name (the scan is not empty)', () => {
    expect(found(/\/memory ([a-z][a-z-]*)/g).length).toBeGreaterThan(10);
    expect(found(/\/memory:([a-z][a-z-]*)/g).length).toBeGreaterThan(5);
  });

  it('every /memory:<command> is a command pi registers', () => {
    const registered = new Set(commandCatalogue.map((c) => c.name));
    const missing = found(/\/(memory:[a-z][a-z-]*)/g).filter((n) => !registered.has(n.name));
    expect(missing).toEqual([]);
  });

  it('every /memory <action> is an action the hub answers', () => {
    const actions = new Set(HUB_ACTIONS.map((a) => a.name));
    const missing = found(/\/memory ([a-z][a-z-]*)/g).filter((n) => !actions.has(n.name));
    expect(missing).toEqual([]);
  });

  it('every hub action listed is answered (none is unknown)', async () => {
    for (const action of HUB_ACTIONS) {
      // An empty context is enough to reach the dispatch: an unknown action answers before any port is read.
      const report = await memoryHubCommand({} as never, action.name).catch((error: unknown) => ({ text: String(error) }));
      expect(report.text, action.name).not.toContain('Unknown action for /memory');
    }
  });

  it('every agent-memory <command> is a CLI command', () => {
    const known = new Set(cliCommands.map((c) => c.name));
    const missing = found(/agent-memory ([a-z][a-z-]*)/g).filter((n) => !known.has(n.name));
    expect(missing).toEqual([]);
  });

  it('every memory_<tool> is a tool pi registers', () => {
    const tools = new Set(toolCatalogue.map((t) => t.name));
    // The server's wire names (memory_id, ...) are not tools; every other layer speaks of tools.
    const missing = found(/\b(memory_[a-z_]*[a-z])\b/g).filter((n) => !n.file.startsWith('server/') && !n.file.startsWith('wire/') && !tools.has(n.name));
    expect(missing).toEqual([]);
  });
});
