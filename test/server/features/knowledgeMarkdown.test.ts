import { describe, expect, it } from 'vitest';
import { exportIndex, pageLog, pageMarkdown, pageType, quoteScalar, visibleTags } from '../../../src/server/features/knowledgeMarkdown.js';

describe('knowledge page markdown (reference 1.9)', () => {
  it('writes frontmatter keys in order, every scalar double-quoted and escaped', () => {
    const md = pageMarkdown(
      { id: 'kp-1', type: 'runbook', title: 'Deploy "prod"', description: 'how\nto', tags: ['a', 'b\\c'], timestamp: '2026-01-01T00:00:00Z' },
      '\n# Body\n\ntext\n\n',
    );
    expect(md).toBe(
      [
        '---',
        'id: "kp-1"',
        'type: "runbook"',
        'title: "Deploy \\"prod\\""',
        'description: "how\\nto"',
        'tags:',
        '  - "a"',
        '  - "b\\\\c"',
        'timestamp: "2026-01-01T00:00:00Z"',
        '---',
        '',
        '# Body',
        '',
        'text',
        '',
      ].join('\n'),
    );
  });

  it('skips null and empty values and has no blank line when the body is empty', () => {
    expect(pageMarkdown({ id: 'kp-2', type: 'knowledge-page', title: 'T', description: null, tags: [], timestamp: undefined }, '  ')).toBe(
      '---\nid: "kp-2"\ntype: "knowledge-page"\ntitle: "T"\n---\n',
    );
  });

  it('reads the type from the first type: tag and hides type: tags', () => {
    expect(pageType(['x', 'type:adr', 'type:note'])).toBe('adr');
    expect(pageType(['x'])).toBe('knowledge-page');
    expect(visibleTags(['x', 'type:adr'])).toEqual(['x']);
    expect(quoteScalar('a\r\nb')).toBe('"a\\nb"');
  });

  it('index.md lists folders in bold and pages as links with their source query', () => {
    const md = exportIndex([
      { id: 'kf-1', kind: 'folder', name: 'Ops', children: [{ id: 'kp-1', kind: 'page', name: 'Deploy', description: 'how we deploy', children: [] }] },
      { id: 'kp-2', kind: 'page', name: 'Style', description: null, children: [] },
    ]);
    expect(md).toBe('---\ntype: "index"\ntitle: "Knowledge base"\n---\n\n- **Ops/**\n  - [Deploy](./kp-1.md) — how we deploy\n- [Style](./kp-2.md)\n');
    expect(exportIndex([])).toContain('_No knowledge pages yet._');
  });

  it('the log lists previous contents newest first as given', () => {
    const log = pageLog({ id: 'kp-1', name: 'Deploy' }, [
      { changedAt: '2026-01-02T00:00:00Z', previousContent: 'old' },
      { changedAt: '2026-01-01T00:00:00Z', previousContent: '' },
    ]);
    expect(log).toContain('## 2026-01-02T00:00:00Z\n\nold\n\n## 2026-01-01T00:00:00Z\n\n_(empty)_');
  });
});
