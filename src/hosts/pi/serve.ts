/**
 * The embedded memory server, as the pi extension ships it: `node <extension>/dist/pi/serve.mjs`
 * (same flags as `agent-memory serve`). The pi bundle is self-contained, so this runs where
 * `pi install` put the extension, with no `npm install` and no clone.
 */
import { serveCommand } from '../cli/commands/serve.js';

process.exitCode = await serveCommand.run(process.argv.slice(2));
