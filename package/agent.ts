/**
 * `synapse-a2a-hub/agent`: the agent handler API, what an agent author implements and the helpers that
 * make its outcomes (docs/package.md, docs/agent-api.md).
 */
export * from '../shared/agent/api.ts';
