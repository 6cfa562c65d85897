/**
 * The config reference as Markdown, generated from the field table so the docs can never list
 * a field, default or variable the code does not have (docs/config.md is checked against it).
 */
import { fieldList, type FieldSpec } from './fields.js';

const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

const defaultOf = (f: FieldSpec): string => {
  if (f.defaultText !== undefined) return f.defaultText;
  if (f.default === undefined) return 'not set';
  return `\`${JSON.stringify(f.default)}\``;
};

export const configReferenceMarkdown = (): string => {
  const tabs = [...new Set(fieldList.map((f) => f.tab))];
  const out: string[] = [
    '# Configuration reference',
    '',
    '<!-- Generated from src/config/fields.ts by `npm run docs:config`; test/config/fieldDocs.test.ts keeps it current. -->',
    '',
    'Resolution, lowest to highest: defaults < user file `~/.pi/agent/memory.json` < project file `{state_dir}/memory.json` < environment.',
    'Objects merge key by key; arrays and scalars replace. A bad value falls back to the layer below with a warning naming file, field and value.',
    '`user file only` fields are refused (with a warning) in a project file, since a repository\'s author wrote that file.',
    '`trusted project only` fields decide whose memories a session reads and writes: a project file\'s value is ignored (with a warning saying how to trust it) unless the user file lists the project directory in `memory.trustedProjects` (and pi, when it has project trust, trusts the project).',
    '`not by a tool call` fields are refused by `memory_config`; `not by a tool call in the user file` fields are refused with `scope: "global"` (they would switch memory off, or change whose memories are read, in every project).',
    'Path fields: a project file may only name a file inside `{state_dir}/memory` (relative); only the user file may point elsewhere. On the way to a file inside the project no directory may be a symbolic link (from the state dir down in `{state_dir}/memory`, from the project down elsewhere in it): memory refuses to open or create anything through one.',
    '',
  ];
  for (const tab of tabs) {
    out.push(`## ${tab}`, '', '| file path | default | choices | environment | notes | what it does |', '|---|---|---|---|---|---|');
    for (const f of fieldList.filter((x) => x.tab === tab)) {
      const notes = [
        f.userFileOnly === true ? 'user file only' : '',
        f.identity === true ? 'trusted project only' : '',
        f.projectMayOnlyDisable === true
          ? 'a project file may turn it off, not on over the user file'
          : f.projectMayOnlyDisable === 'unlessTrusted'
            ? 'a project file may turn it off, and on over the user file only in a trusted project'
            : '',
        f.agentLocked === true ? 'not by a tool call' : f.globalAgentLocked === true ? 'not by a tool call in the user file' : '',
        f.secret === true ? 'secret' : '',
        f.advanced ? 'advanced' : '',
        `reset key \`${f.resetKey}\``,
      ]
        .filter((n) => n !== '')
        .join(', ');
      out.push(
        `| \`${f.path}\` | ${cell(defaultOf(f))} | ${cell((f.choices ?? []).join(', '))} | ${cell((f.env?.names ?? []).map((n) => `\`${n}\``).join(', '))} | ${cell(notes)} | ${cell(f.description)} |`,
      );
    }
    out.push('');
  }
  return out.join('\n');
};
