/**
 * The SQS queues from `QUEUES`, each with its dead-letter queue: SSE
 * (SQS-managed keys), TLS-only access, redrive after `maxReceiveCount` receives.
 */
import { Duration } from 'aws-cdk-lib';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { STREAM_RELAY } from '../../shared/adapters/dynamodb/stream.ts';
import { QUEUES, type QueueDefinition } from '../../shared/adapters/sqs/queues.ts';
import { acknowledge } from './nag.ts';

export interface QueueRef {
  definition: QueueDefinition;
  queue: sqs.IQueue;
  deadLetterQueue: sqs.IQueue;
}

export interface QueuesProps {
  /** Default: `QUEUES`. */
  definitions?: readonly QueueDefinition[];
}

/** `executor-dlq` → `ExecutorDlq` (construct ids). */
export const pascal = (name: string): string =>
  name.replace(/(^|[-_])([a-z0-9])/g, (_m, _sep: string, c: string) => c.toUpperCase());

export class Queues extends Construct {
  /** By logical name (`executor`, …). */
  readonly byName: ReadonlyMap<string, QueueRef>;
  /** Where the stream relay's event source mapping describes batches it gave up on. */
  readonly relayFailures: sqs.Queue;

  constructor(scope: Construct, id: string, props: QueuesProps = {}) {
    super(scope, id);
    const byName = new Map<string, QueueRef>();
    for (const definition of props.definitions ?? QUEUES) {
      const base = pascal(definition.name);
      const deadLetterQueue = new sqs.Queue(this, `${base}Dlq`, {
        encryption: sqs.QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
        retentionPeriod: Duration.days(14),
      });
      const queue = new sqs.Queue(this, `${base}Queue`, {
        encryption: sqs.QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
        visibilityTimeout: Duration.seconds(definition.visibilityTimeoutSeconds),
        retentionPeriod: Duration.days(4),
        deadLetterQueue: { queue: deadLetterQueue, maxReceiveCount: definition.maxReceiveCount },
      });
      byName.set(definition.name, { definition, queue, deadLetterQueue });
    }
    this.byName = byName;
    this.relayFailures = new sqs.Queue(this, pascal(STREAM_RELAY.failureQueueName), {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    acknowledge(this.relayFailures, [
      {
        id: 'AwsSolutions-SQS3',
        reason:
          "The stream relay's on-failure destination is itself the last stop (it only describes batches for an " +
          'operator, who re-drives them from the stream); its not-empty alarm is in Monitoring.',
      },
    ]);
  }

  get(name: string): QueueRef {
    const ref = this.byName.get(name);
    if (!ref) throw new Error(`no queue named ${name}`);
    return ref;
  }
}
