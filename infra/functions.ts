/**
 * The hub's Lambda functions, each declared once with the memory it is deployed with (MB): those serving
 * HTTP routes with the route table (shared/contracts/routes.ts), the others here. A function's id names
 * its entry (`functions/<id>.ts`); the CDK stack deploys the memory (constructs/function.ts) and the
 * benchmarks price it (test/bench/).
 *
 * No CDK import here: the benchmarks load this module without loading aws-cdk-lib.
 */
import { HTTP_FUNCTION_MEMORY_MB } from '../shared/contracts/routes.ts';

/** Memory of each function (MB), by function id. */
export const FUNCTION_MEMORY_MB = {
  // the functions serving the HTTP routes, declared with the route table
  ...HTTP_FUNCTION_MEMORY_MB,
  // in front of every uncached API request: one consistent GetItem or a JWT check (JWKS cached)
  authorizer: 256,
  executor: 1024,
  heartbeat: 256,
  deliver: 256,
  sweeper: 256,
  relay: 256,
  'signing-key-rotation': 256,
  // a probe waits on the network (a card and one GetTask per interface, at once): little memory
  'registry-probe': 256,
} as const satisfies Readonly<Record<string, number>>;

export type FunctionId = keyof typeof FUNCTION_MEMORY_MB;

/** Every deployed function. */
export const FUNCTION_IDS = Object.keys(FUNCTION_MEMORY_MB) as readonly FunctionId[];
