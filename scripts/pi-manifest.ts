/**
 * `npm run pi:manifest`: writes src/hosts/pi/manifest.generated.ts, what pi's light entry
 * registers at start-up (tool names, descriptions and parameter schemas, command names, the
 * events the binding listens to). It runs the real binding against a recording host, so the
 * manifest is what the binding registers; test/hosts/pi/manifest.test.ts fails when they drift.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { manifestSource, recordBinding } from '../src/hosts/pi/manifestOf.js';

const target = fileURLToPath(new URL('../src/hosts/pi/manifest.generated.ts', import.meta.url));
writeFileSync(target, manifestSource(recordBinding()));
console.log(`wrote ${target}`);
