/**
 * The hub's Lambda functions, listed once: each function's id (its entry is `functions/<id>.ts`) and the
 * memory it is deployed with (MB). The CDK stack deploys this memory (constructs/function.ts), the
 * benchmarks price it (test/bench/), and the ids type every place that names a function.
 *
 * No CDK import here: the benchmarks load this module without loading aws-cdk-lib.
 */

/** Memory of each function (MB), by function id. */
export const FUNCTION_MEMORY_MB = {
  'agent-card': 256,
  jsonrpc: 512,
  rest: 512,
  jwks: 256,
  synapse: 256,
  // in front of every uncached API request: one consistent GetItem or a JWT check (JWKS cached)
  authorizer: 256,
  executor: 1024,
  heartbeat: 256,
  deliver: 256,
  sweeper: 256,
  relay: 256,
  'signing-key-rotation': 256,
} as const satisfies Readonly<Record<string, number>>;

export type FunctionId = keyof typeof FUNCTION_MEMORY_MB;

/** Every deployed function. */
export const FUNCTION_IDS = Object.keys(FUNCTION_MEMORY_MB) as readonly FunctionId[];
