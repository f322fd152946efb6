/**
 * `synapse dev`'s work, imported by the command alone (cli/commands/dev.ts): the local hub of `npm start`
 * (local/cli.ts) running the user's agent. The agent module is TypeScript importing the package
 * (`synapse-a2a-hub/agent`), so it is bundled first with esbuild, as a deployment bundles it
 * (infra/bundling.ts), and the hub loads the bundle (its `agentModule`).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import {
  AGENT_API_SPECIFIER,
  BUNDLE_ALIASES,
  resolveAgentModule,
  userNodeBuildOptions,
} from '../../infra/bundling.ts';
import { runCli } from '../../local/cli.ts';
import { processEnv } from '../../shared/config/environment.ts';

export interface DevOptions {
  /** The agent module (relative to the working directory); the demo agent when absent. */
  agent?: string;
  port?: number;
  host?: string;
  dataDir?: string;
}

/** Bundles the agent module into `outdir`; returns the bundle's path. */
export const bundleAgent = async (agent: string, outdir: string): Promise<string> => {
  const outfile = join(outdir, 'agent.mjs');
  await build({
    entryPoints: [resolveAgentModule(agent)],
    outfile,
    ...userNodeBuildOptions(),
    // the agent's stack traces name its own lines
    sourcemap: 'inline',
    // only the agent API's alias: the others are for Lambda (its credentials) and would change the
    // agent's own use of the AWS SDK on this machine
    alias: { [AGENT_API_SPECIFIER]: BUNDLE_ALIASES[AGENT_API_SPECIFIER]! },
    logLevel: 'warning',
  });
  return outfile;
};

export const runDev = async (options: DevOptions): Promise<void> => {
  const env = { ...processEnv() };
  if (options.agent !== undefined) {
    const outdir = mkdtempSync(join(tmpdir(), 'synapse-dev-'));
    process.on('exit', () => rmSync(outdir, { recursive: true, force: true }));
    env.AGENT_MODULE = await bundleAgent(options.agent, outdir);
  }
  if (options.port !== undefined) env.PORT = String(options.port);
  if (options.host !== undefined) env.HOST = options.host;
  await runCli({
    argv: options.dataDir !== undefined ? ['--data-dir', options.dataDir] : [],
    env,
    synapseCommand: 'npx synapse',
  });
};
