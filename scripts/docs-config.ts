/** Writes docs/config.md from the config field table. */
import { writeFileSync } from 'node:fs';
import { configReferenceMarkdown } from '../src/config/fieldDocs.js';

writeFileSync(new URL('../docs/config.md', import.meta.url), configReferenceMarkdown());
console.log('wrote docs/config.md');
