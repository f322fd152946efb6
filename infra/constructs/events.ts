/** The EventBridge bus the hub publishes task lifecycle events to (for integrations). */
import * as events from 'aws-cdk-lib/aws-events';
import { Construct } from 'constructs';

export class TaskEvents extends Construct {
  readonly bus: events.EventBus;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.bus = new events.EventBus(this, 'Bus', {
      description: 'Synapse task lifecycle events (source "synapse.tasks")',
    });
  }
}
