/**
 * The HTTP routes and the function serving each, in one place: the CDK API
 * and the local runtime's gateway are both built from this list.
 */
export type FunctionName = 'agent-card' | 'jsonrpc';

export interface RouteDefinition {
  method: 'GET' | 'POST';
  /** API Gateway resource path. */
  path: string;
  function: FunctionName;
}

/** Path of the JSON-RPC interface, relative to the deployment's public URL. */
export const JSONRPC_PATH = '/a2a/jsonrpc';

export const ROUTES: readonly RouteDefinition[] = [
  { method: 'GET', path: '/.well-known/agent-card.json', function: 'agent-card' },
  { method: 'GET', path: '/.well-known/agent.json', function: 'agent-card' },
  { method: 'POST', path: JSONRPC_PATH, function: 'jsonrpc' },
];
