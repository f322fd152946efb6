/**
 * The background functions: the executor (SQS event source on the executor
 * queue, partial batch responses), the heartbeat watch (SQS event source on
 * the heartbeat queue), the sweeper (triggered by `Schedules`) and the relay
 * (DynamoDB stream event source on the task table: the outbox).
 *
 * Least privilege: the executor reads/writes tasks (its liveness writes are
 * conditional puts too), consumes its queue (the event source mapping grants
 * that) and sends to it (a lease watch from before heartbeats looks again
 * later) and to its dead-letter queue (a poison message); the heartbeat
 * function reads/writes tasks, consumes its queue and sends to it (a watch
 * re-arms itself) and to its dead-letter queue, and queries no index; the
 * sweeper queries the deadline index and writes tasks conditionally; the
 * relay reads the stream (granted by its mapping), sends to the executor and
 * heartbeat queues and to its failure queue (an undecodable record) and puts
 * events on the bus, and touches no item.
 *
 * The heartbeat watch has a function of its own rather than a second event
 * source on the executor: a check takes milliseconds and must not wait behind
 * (or be timed like) 15-minute agent runs, and it needs no more than its role.
 */
import { Duration } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import type * as events from 'aws-cdk-lib/aws-events';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq, SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type * as logs from 'aws-cdk-lib/aws-logs';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { STREAM_RELAY } from '../../shared/adapters/dynamodb/stream.ts';
import { RELAY_FAILURES_URL_ENV } from '../../shared/adapters/sqs/queues.ts';
import { grantTableReadWrite } from '../permissions.ts';
import { HubFunction } from './function.ts';
import type { QueueRef } from './queues.ts';

/** The only index the sweeper queries. */
export const SWEEPER_INDEXES = ['byDeadline'] as const;
/** The executor reads tasks and their history from the table itself, through no index. */
export const EXECUTOR_INDEXES = [] as const;
/** The heartbeat watch reads the task item alone. */
export const HEARTBEAT_INDEXES = [] as const;

export interface WorkersProps {
  agentModule: string;
  environment: Record<string, string>;
  table: ITableV2;
  executorQueue: QueueRef;
  /** The heartbeat watches' queue. */
  heartbeatQueue: QueueRef;
  /** The lifecycle event bus the relay publishes to. */
  bus: events.IEventBus;
  /** The relay's on-failure destination. */
  relayFailures: sqs.IQueue;
  logRetention?: logs.RetentionDays;
}

export class Workers extends Construct {
  readonly executor: HubFunction;
  readonly heartbeat: HubFunction;
  readonly sweeper: HubFunction;
  readonly relay: HubFunction;

  constructor(scope: Construct, id: string, props: WorkersProps) {
    super(scope, id);
    const { definition, queue, deadLetterQueue } = props.executorQueue;

    this.executor = new HubFunction(this, 'Executor', {
      fn: 'executor',
      agentModule: props.agentModule,
      environment: { ...props.environment, [definition.dlqUrlEnv]: deadLetterQueue.queueUrl },
      timeout: Duration.seconds(definition.consumerTimeoutSeconds),
      description: 'Synapse: runs the agent for queued tasks',
      ...(props.logRetention ? { logRetention: props.logRetention } : {}),
    });
    if (definition.visibilityTimeoutSeconds < definition.consumerTimeoutSeconds) {
      throw new Error(`queue ${definition.name}: visibility timeout shorter than the consumer timeout`);
    }
    this.executor.function.addEventSource(
      new SqsEventSource(queue, { batchSize: definition.batchSize, reportBatchItemFailures: true }),
    );
    // consuming is granted by the event source; sending is for lease checks that must look again later
    grantTableReadWrite(props.table, this.executor.function, { indexes: EXECUTOR_INDEXES });
    queue.grantSendMessages(this.executor.function);
    // a poison message goes to the dead-letter queue at once (shared/adapters/lambda/sqs-batch.ts)
    deadLetterQueue.grantSendMessages(this.executor.function);

    const beats = props.heartbeatQueue;
    this.heartbeat = new HubFunction(this, 'Heartbeat', {
      fn: 'heartbeat',
      agentModule: props.agentModule,
      environment: { ...props.environment, [beats.definition.dlqUrlEnv]: beats.deadLetterQueue.queueUrl },
      timeout: Duration.seconds(beats.definition.consumerTimeoutSeconds),
      description: 'Synapse: watches the heartbeat of running tasks',
      ...(props.logRetention ? { logRetention: props.logRetention } : {}),
    });
    if (beats.definition.visibilityTimeoutSeconds < beats.definition.consumerTimeoutSeconds) {
      throw new Error(`queue ${beats.definition.name}: visibility timeout shorter than the consumer timeout`);
    }
    this.heartbeat.function.addEventSource(
      new SqsEventSource(beats.queue, {
        batchSize: beats.definition.batchSize,
        reportBatchItemFailures: true,
      }),
    );
    grantTableReadWrite(props.table, this.heartbeat.function, { indexes: HEARTBEAT_INDEXES });
    // a watch of a run still alive re-arms itself
    beats.queue.grantSendMessages(this.heartbeat.function);
    beats.deadLetterQueue.grantSendMessages(this.heartbeat.function);

    this.sweeper = new HubFunction(this, 'Sweeper', {
      fn: 'sweeper',
      agentModule: props.agentModule,
      environment: props.environment,
      timeout: Duration.seconds(55),
      description: 'Synapse: expires tasks whose deadline passed',
      ...(props.logRetention ? { logRetention: props.logRetention } : {}),
    });
    grantTableReadWrite(props.table, this.sweeper.function, { indexes: SWEEPER_INDEXES });

    this.relay = new HubFunction(this, 'Relay', {
      fn: 'relay',
      agentModule: props.agentModule,
      environment: { ...props.environment, [RELAY_FAILURES_URL_ENV]: props.relayFailures.queueUrl },
      timeout: Duration.seconds(STREAM_RELAY.timeoutSeconds),
      description:
        'Synapse: relays committed task changes (the table stream) to the executor queue and the bus',
      ...(props.logRetention ? { logRetention: props.logRetention } : {}),
    });
    this.relay.function.addEventSource(
      new DynamoEventSource(props.table, {
        startingPosition: lambda.StartingPosition.TRIM_HORIZON,
        batchSize: STREAM_RELAY.batchSize,
        bisectBatchOnError: STREAM_RELAY.bisectBatchOnError,
        retryAttempts: STREAM_RELAY.maxRetryAttempts,
        maxRecordAge: Duration.seconds(STREAM_RELAY.maxRecordAgeSeconds),
        reportBatchItemFailures: true,
        // records of one task share a shard and stay in order: one batch per shard at a time
        parallelizationFactor: 1,
        onFailure: new SqsDlq(props.relayFailures),
        // only task items: bodies, history chunks and TTL deletions cost no invocation
        filters: [
          lambda.FilterCriteria.filter({
            eventName: lambda.FilterRule.or(...STREAM_RELAY.filter.eventNames),
            dynamodb: { Keys: { sk: { S: lambda.FilterRule.or(...STREAM_RELAY.filter.sortKeys) } } },
          }),
        ],
      }),
    );
    queue.grantSendMessages(this.relay.function);
    beats.queue.grantSendMessages(this.relay.function);
    props.bus.grantPutEventsTo(this.relay.function);
    // it describes an undecodable record on the failure queue itself (the mapping's destination grant aside)
    props.relayFailures.grantSendMessages(this.relay.function);
  }
}
