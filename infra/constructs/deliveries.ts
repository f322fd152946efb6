/**
 * Outbound deliveries (docs/deliveries.md): the delivery worker (functions/deliver.ts), an SQS event
 * source on the delivery queue with partial batch responses. The queue and its dead-letter queue are
 * the state's (constructs/queues.ts, from DELIVERY_QUEUE); the relay fills the queue.
 *
 * Least privilege, its own role: it reads the table (the task item, its history chunks and bodies, its
 * push configs: GetItem, BatchGetItem, Query; no index) and writes with PutItem alone (its delivery
 * log items; it never writes a task: the conditional puts it makes are on `L#` items), consumes its
 * queue (granted by the event source), sends to it (its own retries) and to the dead-letter queue (a
 * delivery that gave up), reads the push signing key secret (grantPushSigningKeys) and the Synapse
 * peers secret (grantSynapsePeers: it signs the Synapse callbacks, as SYNAPSE_AGENT_ID from
 * `${PUBLIC_URL}/synapse/callback`). The relay is granted sending to the delivery queue here, beside
 * the rest of what deliveries need.
 */
import { Duration } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type * as logs from 'aws-cdk-lib/aws-logs';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { DELIVERY_DLQ_URL_ENV } from '../../shared/adapters/sqs/queues.ts';
import { TABLE_READ_ACTIONS } from '../permissions.ts';
import { HubFunction } from './function.ts';
import { grantPushSigningKeys } from './keys.ts';
import type { QueueRef } from './queues.ts';
import { DEFAULT_SYNAPSE_AGENT_ID, grantSynapsePeers } from './synapse.ts';

/** What the worker writes: its log items, one conditional PutItem each (never a batch, never an update). */
export const DELIVERY_WRITE_ACTIONS = ['dynamodb:PutItem'] as const;

export interface DeliveriesProps {
  agentModule: string;
  environment: Record<string, string>;
  table: ITableV2;
  /** The delivery queue (DELIVERY_QUEUE) and its dead-letter queue. */
  queue: QueueRef;
  /** The push signing key secret (constructs/keys.ts). */
  signingKeys: secretsmanager.ISecret;
  /** The Synapse peers secret the callbacks are signed with (constructs/synapse.ts). */
  synapsePeers: secretsmanager.ISecret;
  /** This hub's Synapse agent id, the callbacks' sender (default `synapse-hub`). */
  synapseAgentId?: string;
  /** The stream relay, which enqueues the deliveries. */
  relay: lambda.IFunction;
  logRetention?: logs.RetentionDays;
}

export class Deliveries extends Construct {
  readonly worker: HubFunction;

  constructor(scope: Construct, id: string, props: DeliveriesProps) {
    super(scope, id);
    const { definition, queue, deadLetterQueue } = props.queue;
    if (definition.visibilityTimeoutSeconds < definition.consumerTimeoutSeconds) {
      throw new Error(`queue ${definition.name}: visibility timeout shorter than the consumer timeout`);
    }

    this.worker = new HubFunction(this, 'Worker', {
      fn: 'deliver',
      agentModule: props.agentModule,
      environment: { ...props.environment, [DELIVERY_DLQ_URL_ENV]: deadLetterQueue.queueUrl },
      timeout: Duration.seconds(definition.consumerTimeoutSeconds),
      description:
        'Synapse: delivers push notifications and Synapse callbacks (signed, SSRF-guarded, retried, logged per task)',
      ...(props.logRetention ? { logRetention: props.logRetention } : {}),
    });
    const fn = this.worker.function;
    fn.addEventSource(
      new SqsEventSource(queue, { batchSize: definition.batchSize, reportBatchItemFailures: true }),
    );
    iam.Grant.addToPrincipal({
      grantee: fn,
      actions: [...TABLE_READ_ACTIONS],
      resourceArns: [props.table.tableArn],
    });
    iam.Grant.addToPrincipal({
      grantee: fn,
      actions: [...DELIVERY_WRITE_ACTIONS],
      resourceArns: [props.table.tableArn],
    });
    // its own retries, and the deliveries that gave up
    queue.grantSendMessages(fn);
    deadLetterQueue.grantSendMessages(fn);
    grantPushSigningKeys(props.signingKeys, fn);
    grantSynapsePeers(props.synapsePeers, fn, props.synapseAgentId ?? DEFAULT_SYNAPSE_AGENT_ID);

    queue.grantSendMessages(props.relay);
  }
}
