/** HeartbeatQueue on SQS: each watch a delayed message on the heartbeat queue (HEARTBEAT_QUEUE). */
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { HeartbeatQueue, HeartbeatWatch } from '../../ports/heartbeat-queue.ts';
import { sendJsonBatches } from './send.ts';

export class SqsHeartbeatQueue implements HeartbeatQueue {
  constructor(
    private readonly client: SQSClient,
    private readonly queueUrl: string,
  ) {}

  arm(watches: readonly HeartbeatWatch[], delaySeconds: number): Promise<void> {
    return sendJsonBatches(this.client, this.queueUrl, watches, delaySeconds, 'heartbeat watch');
  }
}
