/** The EventBridge schedule that runs the sweeper every minute. */
import { Duration } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';

export interface SchedulesProps {
  sweeper: lambda.IFunction;
  /** Default 1 minute. */
  sweepInterval?: Duration;
}

export class Schedules extends Construct {
  readonly sweepRule: events.Rule;

  constructor(scope: Construct, id: string, props: SchedulesProps) {
    super(scope, id);
    this.sweepRule = new events.Rule(this, 'Sweep', {
      description: 'Synapse: run the expiry sweeper',
      schedule: events.Schedule.rate(props.sweepInterval ?? Duration.minutes(1)),
      // A missed tick is covered by the next one: no retries, no stale invocations.
      targets: [
        new targets.LambdaFunction(props.sweeper, { retryAttempts: 0, maxEventAge: Duration.minutes(1) }),
      ],
    });
  }
}
