/**
 * Finds the agent to run. `AGENT_MODULE` (a module path, absolute or relative
 * to the working directory) wins; otherwise the `#agent` import, which
 * package.json maps to the demo agent and a Lambda bundle aliases to the
 * deployment's agent module.
 */
import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { AGENT_MODULE } from '../config/deployment.ts';
import { readSetting } from '../config/settings.ts';
import type { AgentHandler } from './api.ts';

let cached: Promise<AgentHandler> | undefined;

const isAgent = (value: unknown): value is AgentHandler =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as AgentHandler).describe === 'function' &&
  typeof (value as AgentHandler).execute === 'function';

export const agentFrom = (module: Record<string, unknown>, source: string): AgentHandler => {
  const candidate = module.default ?? module.agent;
  if (!isAgent(candidate)) {
    throw new Error(
      `${source} must export an agent handler (describe, execute) as its default export or as "agent"`,
    );
  }
  return candidate;
};

export const loadAgent = (modulePath = readSetting(AGENT_MODULE)): Promise<AgentHandler> => {
  cached ??= (async () => {
    if (modulePath) {
      const file = isAbsolute(modulePath) ? modulePath : resolve(process.cwd(), modulePath);
      return agentFrom(await import(pathToFileURL(file).href), modulePath);
    }
    return agentFrom(await import('#agent'), '#agent');
  })();
  return cached;
};

/** For tests that load different agents in one process. */
export const resetAgentCache = (): void => {
  cached = undefined;
};
