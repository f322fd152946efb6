/**
 * The registry's health probing (docs/registry.md#health): an EventBridge rule puts a tick on the probe
 * queue every tick (REGISTRY_PROBE_TICK_SECONDS; whole minutes on AWS), and the probe function, the
 * queue's consumer, queues the probes due in that tick on the same queue, each delayed to its offset, then
 * carries them out. The rule lives with the queue in the state stack (the queue's policy names the rule:
 * across stacks that would be a cycle); the function with the services. Least privilege: the function
 * reads and writes the registry's items (by key, and the byRegistry index for its catalog feed), sends to
 * its queue (consuming is the event source's grant) and to its dead-letter queue (a poison message), and
 * calls out only through the SSRF guard.
 */
import { Duration } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type * as logs from 'aws-cdk-lib/aws-logs';
import * as triggers from 'aws-cdk-lib/triggers';
import { Construct } from 'constructs';
import { grantTableReadWrite } from '../permissions.ts';
import { REGISTRY_INDEXES } from './api.ts';
import { HubFunction } from './function.ts';
import type { QueueRef } from './queues.ts';

/** The probe schedule's default tick: SQS's longest delay, so each tick spreads its probes over 15 minutes. */
export const DEFAULT_PROBE_TICK = Duration.minutes(15);

export interface RegistryProbeScheduleProps {
  queue: QueueRef;
  /** How often the schedule ticks (REGISTRY_PROBE_TICK_SECONDS): whole minutes, at most 15. */
  tick?: Duration;
}

/** The rule that ticks the probes, beside the queue it feeds. */
export class RegistryProbeSchedule extends Construct {
  readonly tick: Duration;
  readonly rule: events.Rule;

  constructor(scope: Construct, id: string, props: RegistryProbeScheduleProps) {
    super(scope, id);
    this.tick = props.tick ?? DEFAULT_PROBE_TICK;
    this.rule = new events.Rule(this, 'Tick', {
      description: "Synapse: tick the registry's health probes",
      schedule: events.Schedule.rate(this.tick),
      // the tick's time says which agents are due (shared/domain/registry/probe-schedule.ts)
      targets: [
        new targets.SqsQueue(props.queue.queue, {
          message: events.RuleTargetInput.fromObject({ probeTick: events.EventField.time }),
          retryAttempts: 2,
          maxEventAge: this.tick,
        }),
      ],
    });
  }
}

export interface RegistryProbesProps {
  agentModule: string;
  environment: Record<string, string>;
  table: ITableV2;
  queue: QueueRef;
  /** The schedule's tick (RegistryProbeSchedule's). */
  tick: Duration;
  /** What must be deployed before the hub's own card can be fetched and published (the API). */
  publishOwnCardAfter: Construct[];
  logRetention?: logs.RetentionDays;
}

export class RegistryProbes extends Construct {
  readonly probe: HubFunction;

  constructor(scope: Construct, id: string, props: RegistryProbesProps) {
    super(scope, id);
    const { definition, queue, deadLetterQueue } = props.queue;
    const { tick } = props;
    this.probe = new HubFunction(this, 'Probe', {
      fn: 'registry-probe',
      agentModule: props.agentModule,
      environment: {
        ...props.environment,
        REGISTRY_PROBE_TICK_SECONDS: String(tick.toSeconds()),
        [definition.dlqUrlEnv]: deadLetterQueue.queueUrl,
      },
      timeout: Duration.seconds(definition.consumerTimeoutSeconds),
      description: "Synapse: probes the registry's agents (their card and each interface's GetTask)",
      ...(props.logRetention ? { logRetention: props.logRetention } : {}),
    });
    if (definition.visibilityTimeoutSeconds < definition.consumerTimeoutSeconds)
      throw new Error(`queue ${definition.name}: visibility timeout shorter than the consumer timeout`);
    this.probe.function.addEventSource(
      new SqsEventSource(queue, { batchSize: definition.batchSize, reportBatchItemFailures: true }),
    );
    grantTableReadWrite(props.table, this.probe.function, { indexes: REGISTRY_INDEXES });
    queue.grantSendMessages(this.probe.function);
    // a poison message goes to the dead-letter queue at once (shared/adapters/lambda/sqs-batch.ts)
    deadLetterQueue.grantSendMessages(this.probe.function);

    // the hub's own card, published to its registry after every deployment that changes the function
    // (functions/registry-probe.ts invoked with no records); asynchronous: a failure is logged, the
    // deployment goes on
    new triggers.Trigger(this, 'PublishOwnCard', {
      handler: this.probe.function,
      executeAfter: props.publishOwnCardAfter,
      invocationType: triggers.InvocationType.EVENT,
    });
  }
}
