/**
 * Markdown of knowledge pages and the knowledge-base export, byte for byte as reference
 * 1.9 describes: YAML frontmatter with every scalar double-quoted, then the trimmed body.
 */

export interface PageFrontmatter {
  readonly id: string;
  readonly type: string;
  readonly title: string;
  readonly description?: string | null | undefined;
  readonly tags: readonly string[];
  readonly timestamp?: string | null | undefined;
}

/** `"…"` with backslash, double quote and newline escaped. */
export const quoteScalar = (value: string): string =>
  `"${value.replace(/\\/gu, '\\\\').replace(/"/gu, '\\"').replace(/\r?\n/gu, '\\n')}"`;

const TYPE_TAG = 'type:';

/** The page type: the first `type:<x>` tag, else `knowledge-page`. */
export const pageType = (tags: readonly string[]): string => {
  const tag = tags.find((t) => t.startsWith(TYPE_TAG) && t.length > TYPE_TAG.length);
  return tag === undefined ? 'knowledge-page' : tag.slice(TYPE_TAG.length);
};

/** The page's tags without its `type:` tags. */
export const visibleTags = (tags: readonly string[]): string[] => tags.filter((t) => !t.startsWith(TYPE_TAG));

const frontmatter = (entries: readonly (readonly [string, string | readonly string[] | null | undefined])[]): string => {
  const lines = ['---'];
  for (const [key, value] of entries) {
    if (value === null || value === undefined) continue;
    if (typeof value === 'string') {
      if (value.length === 0) continue;
      lines.push(`${key}: ${quoteScalar(value)}`);
    } else {
      if (value.length === 0) continue;
      lines.push(`${key}:`);
      for (const item of value) lines.push(`  - ${quoteScalar(item)}`);
    }
  }
  lines.push('---');
  return lines.join('\n');
};

const withBody = (head: string, body: string): string => {
  const trimmed = body.trim();
  return trimmed.length === 0 ? `${head}\n` : `${head}\n\n${trimmed}\n`;
};

/** A page as markdown: frontmatter (`id`, `type`, `title`, `description`, `tags`, `timestamp`) then body. */
export const pageMarkdown = (page: PageFrontmatter, body: string): string =>
  withBody(
    frontmatter([
      ['id', page.id],
      ['type', page.type],
      ['title', page.title],
      ['description', page.description],
      ['tags', page.tags],
      ['timestamp', page.timestamp],
    ]),
    body,
  );

export interface IndexNode {
  readonly id: string;
  readonly kind: 'folder' | 'page';
  readonly name: string;
  readonly description?: string | null | undefined;
  readonly children: readonly IndexNode[];
}

const indexLines = (nodes: readonly IndexNode[], depth: number): string[] =>
  nodes.flatMap((node) => {
    const indent = '  '.repeat(depth);
    if (node.kind === 'folder') return [`${indent}- **${node.name}/**`, ...indexLines(node.children, depth + 1)];
    const about = node.description !== undefined && node.description !== null && node.description.length > 0 ? ` — ${node.description}` : '';
    return [`${indent}- [${node.name}](./${node.id}.md)${about}`];
  });

/** `index.md` of the export: a nested bullet list of folders and pages. */
export const exportIndex = (roots: readonly IndexNode[]): string => {
  const lines = indexLines(roots, 0);
  const body = lines.length === 0 ? '_No knowledge pages yet._' : lines.join('\n');
  return withBody(frontmatter([['type', 'index'], ['title', 'Knowledge base']]), body);
};

export interface HistoryEntry {
  readonly changedAt: string;
  readonly previousContent: string;
}

/** `<page-id>.log.md`: the page's refresh history, newest first. */
export const pageLog = (page: { readonly id: string; readonly name: string }, history: readonly HistoryEntry[]): string => {
  const head = frontmatter([['id', page.id], ['type', 'log'], ['title', `${page.name} — history`]]);
  const body = history.map((h) => `## ${h.changedAt}\n\n${h.previousContent.trim().length === 0 ? '_(empty)_' : h.previousContent.trim()}`).join('\n\n');
  return withBody(head, body);
};
