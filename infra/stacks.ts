/**
 * The two stacks of the app: stateful (table, queues, bus; rarely changes,
 * retained) and stateless (functions, API, schedule, monitoring; redeployed
 * freely). The stateless stack gets the stateful resources as props; CDK turns
 * them into cross-stack exports/imports.
 */
import { Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import {
  SynapseServices,
  type SynapseServicesOptions,
  SynapseState,
  type SynapseStateProps,
  type SynapseStateRefs,
} from './synapse-hub.ts';

export interface StatefulStackProps extends StackProps, SynapseStateProps {}

export class StatefulStack extends Stack {
  readonly state: SynapseState;

  constructor(scope: Construct, id: string, props: StatefulStackProps = {}) {
    super(scope, id, props);
    this.state = new SynapseState(this, 'State', props);
  }
}

export interface StatelessStackProps extends StackProps, SynapseServicesOptions {
  state: SynapseStateRefs;
}

export class StatelessStack extends Stack {
  readonly services: SynapseServices;

  constructor(scope: Construct, id: string, props: StatelessStackProps) {
    super(scope, id, props);
    // StackProps fields in `props` are ignored by SynapseServices.
    this.services = new SynapseServices(this, 'Services', props);
  }
}
