/**
 * The background functions: the executor (SQS event source on the executor
 * queue, partial batch responses), the sweeper (triggered by `Schedules`) and
 * the relay (DynamoDB stream event source on the task table: the outbox).
 *
 * Least privilege: the executor reads/writes tasks, consumes its queue (the
 * event source mapping grants that) and sends to it (a lease still running is
 * looked at again later); the sweeper queries the deadline index and writes
 * tasks conditionally; the relay reads the stream (granted by its mapping),
 * sends to the executor queue and puts events on the bus, and touches no item.
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
import { grantTableReadWrite } from '../permissions.ts';
import { HubFunction } from './function.ts';
import type { QueueRef } from './queues.ts';

/** The only index the sweeper queries. */
export const SWEEPER_INDEXES = ['byDeadline'] as const;
/** The executor reads tasks and their history from the table itself, through no index. */
export const EXECUTOR_INDEXES = [] as const;

export interface WorkersProps {
  agentModule: string;
  environment: Record<string, string>;
  table: ITableV2;
  executorQueue: QueueRef;
  /** The lifecycle event bus the relay publishes to. */
  bus: events.IEventBus;
  /** The relay's on-failure destination. */
  relayFailures: sqs.IQueue;
  logRetention?: logs.RetentionDays;
}

export class Workers extends Construct {
  readonly executor: HubFunction;
  readonly sweeper: HubFunction;
  readonly relay: HubFunction;

  constructor(scope: Construct, id: string, props: WorkersProps) {
    super(scope, id);
    const { definition, queue } = props.executorQueue;

    this.executor = new HubFunction(this, 'Executor', {
      fn: 'executor',
      agentModule: props.agentModule,
      environment: props.environment,
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
      environment: props.environment,
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
            dynamodb: { Keys: { sk: { S: lambda.FilterRule.isEqual(STREAM_RELAY.filter.sortKey) } } },
          }),
        ],
      }),
    );
    queue.grantSendMessages(this.relay.function);
    props.bus.grantPutEventsTo(this.relay.function);
  }
}
