/**
 * The background functions: the executor (SQS event source on the executor
 * queue, partial batch responses) and the sweeper (triggered by `Schedules`).
 *
 * Least privilege: the executor reads/writes tasks and consumes its queue (the
 * event source mapping grants that); the sweeper queries the deadline index
 * and writes tasks conditionally. Neither puts lifecycle events yet: that
 * comes with the delivery pipeline.
 */
import { Duration } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { grantTableReadWrite } from '../permissions.ts';
import { HubFunction } from './function.ts';
import type { QueueRef } from './queues.ts';

/** The only index the sweeper queries. */
export const SWEEPER_INDEXES = ['byDeadline'] as const;
/** The executor reads a task's messages and artifacts (the store's read). */
export const EXECUTOR_INDEXES = ['byKind'] as const;

export interface WorkersProps {
  agentModule: string;
  environment: Record<string, string>;
  table: ITableV2;
  executorQueue: QueueRef;
  logRetention?: logs.RetentionDays;
}

export class Workers extends Construct {
  readonly executor: HubFunction;
  readonly sweeper: HubFunction;

  constructor(scope: Construct, id: string, props: WorkersProps) {
    super(scope, id);
    const { definition, queue } = props.executorQueue;

    this.executor = new HubFunction(this, 'Executor', {
      fn: 'executor',
      agentModule: props.agentModule,
      environment: props.environment,
      timeout: Duration.seconds(definition.consumerTimeoutSeconds),
      memorySize: 1024,
      description: 'Synapse: runs the agent for queued tasks',
      ...(props.logRetention ? { logRetention: props.logRetention } : {}),
    });
    if (definition.visibilityTimeoutSeconds < definition.consumerTimeoutSeconds) {
      throw new Error(`queue ${definition.name}: visibility timeout shorter than the consumer timeout`);
    }
    this.executor.function.addEventSource(
      new SqsEventSource(queue, { batchSize: definition.batchSize, reportBatchItemFailures: true }),
    );
    // consuming is granted by the event source; lifecycle events (the bus) arrive with the delivery pipeline
    grantTableReadWrite(props.table, this.executor.function, { indexes: EXECUTOR_INDEXES });

    this.sweeper = new HubFunction(this, 'Sweeper', {
      fn: 'sweeper',
      agentModule: props.agentModule,
      environment: props.environment,
      timeout: Duration.seconds(55),
      memorySize: 256,
      description: 'Synapse: expires tasks whose deadline passed',
      ...(props.logRetention ? { logRetention: props.logRetention } : {}),
    });
    grantTableReadWrite(props.table, this.sweeper.function, { indexes: SWEEPER_INDEXES });
  }
}
