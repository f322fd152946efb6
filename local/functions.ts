/**
 * The module of each function the local hub runs, each imported when first needed. Named one by one
 * (not by a computed path) so that a bundle of the local hub (the `synapse dev` command, cli/build.ts)
 * carries them: esbuild follows literal imports only.
 */
import type { HubFunctionName } from './hub.ts';

export const FUNCTION_MODULES: Record<HubFunctionName, () => Promise<{ handler?: unknown }>> = {
  'agent-card': () => import('../functions/agent-card.ts'),
  authorizer: () => import('../functions/authorizer.ts'),
  deliver: () => import('../functions/deliver.ts'),
  executor: () => import('../functions/executor.ts'),
  heartbeat: () => import('../functions/heartbeat.ts'),
  inspector: () => import('../functions/inspector.ts'),
  jsonrpc: () => import('../functions/jsonrpc.ts'),
  jwks: () => import('../functions/jwks.ts'),
  registry: () => import('../functions/registry.ts'),
  'registry-probe': () => import('../functions/registry-probe.ts'),
  relay: () => import('../functions/relay.ts'),
  rest: () => import('../functions/rest.ts'),
  sweeper: () => import('../functions/sweeper.ts'),
  synapse: () => import('../functions/synapse.ts'),
};
