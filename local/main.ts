/**
 * `npm start` (tsx local/main.ts): the hub with the real functions.
 * PORT (8080), HOST (127.0.0.1), SYNAPSE_DATA_DIR or --data-dir, AGENT_MODULE (docs/configuration.md).
 */
import { processEnv } from '../shared/config/environment.ts';
import { runCli } from './cli.ts';

await runCli({ argv: process.argv.slice(2), env: processEnv() });
