import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { configReferenceMarkdown } from '../../src/config/fieldDocs.js';
import { fieldList } from '../../src/config/fields.js';

describe('docs/config.md', () => {
  it('is the reference generated from the field table (run `npm run docs:config` after changing a field)', () => {
    expect(readFileSync('docs/config.md', 'utf8')).toBe(configReferenceMarkdown());
  });

  it('lists every field once, with its reset key', () => {
    const doc = configReferenceMarkdown();
    for (const f of fieldList) {
      expect(doc.split(`| \`${f.path}\` |`).length - 1).toBe(1);
      expect(doc).toContain(`reset key \`${f.resetKey}\``);
    }
  });
});
