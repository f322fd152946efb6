/**
 * `synapse-a2a-hub/cdk`: the hub as CDK constructs (`SynapseHub`, or `SynapseState` and
 * `SynapseServices` for two stacks) with the user's agent bundled into its functions (docs/package.md).
 */

export {
  StatefulStack,
  type StatefulStackProps,
  StatelessStack,
  type StatelessStackProps,
} from '../infra/stacks.ts';
export * from '../infra/synapse-hub.ts';
