/**
 * `agent-memory serve` as a child the chaos harness can SIGKILL and restart: the serve command
 * itself, without the CLI's dispatcher, so esbuild can bundle it small (a restart costs ~0.3 s
 * instead of tsx's ~2 s; the long run restarts it hundreds of times).
 */
import { serveCommand } from '../../../src/hosts/cli/commands/serve.js';

process.exitCode = await serveCommand.run(process.argv.slice(2));
