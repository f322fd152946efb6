/**
 * p2p:heartbeat to a Synapse requester while this hub runs its task (docs/heartbeats.md): one per
 * interval, each message queueing the next, as long as the claim it follows runs the task. Best effort
 * and not logged (a lost one is followed by the next; a requester counts any message as a sign of
 * life): not retried, never dead-lettered.
 */
import type { Clock } from '../../ports/clock.ts';
import type { DeliveryMessage, DeliveryQueue } from '../../ports/delivery-queue.ts';
import type { PushConfigStore } from '../../ports/push-config-store.ts';
import type { TaskStore } from '../../ports/task-store.ts';
import type { WebhookSender } from '../../ports/webhook-sender.ts';
import { composeMessage } from '../../protocol/synapse/compose.ts';
import { signForPeer } from '../../protocol/synapse/signing.ts';
import { heartbeatMessageId } from '../synapse/callbacks.ts';
import type { SynapseSigning } from './synapse-callback.ts';

/** What a heartbeat message came to: `sent` when the requester took it, `next` when the following one is queued. */
export type HeartbeatResult = { result: 'heartbeat'; sent: boolean; next: boolean; error?: string };

export interface PeerHeartbeatPorts {
  store: Pick<TaskStore, 'get'>;
  configs: Pick<PushConfigStore, 'get'>;
  sender: WebhookSender;
  queue: Pick<DeliveryQueue, 'enqueue'>;
  synapse?: SynapseSigning;
  clock: Clock;
}

export interface PeerHeartbeatOptions {
  /** The interval (HEARTBEAT_INTERVAL_SECONDS), also told to the requester. */
  heartbeatSeconds: number;
  /** The request timeout; default the sender's. */
  timeoutMs?: number;
}

/** One p2p:heartbeat to the task's Synapse requester, then the next one, an interval later. */
export const beatPeer = async (
  ports: PeerHeartbeatPorts,
  options: PeerHeartbeatOptions,
  message: DeliveryMessage,
  beat: NonNullable<DeliveryMessage['heartbeat']>,
): Promise<HeartbeatResult> => {
  const record = await ports.store.get({ tenant: message.tenant, taskId: message.taskId });
  const head = record?.head;
  const running =
    head?.role === 'executor' &&
    head.state === 'executing' &&
    head.leaseUntil === beat.claim &&
    (head.pushConfigIds ?? []).includes(message.configId);
  if (!head || !running) return { result: 'heartbeat', sent: false, next: false };
  const [config] = await ports.configs.get(message.tenant, message.taskId, [message.configId]);
  const peer = config?.synapse ? (await ports.synapse?.peers())?.peer(config.synapse.peerId) : undefined;
  // nothing can be sent (the config or the peer is gone): the chain ends
  if (!config?.synapse || !peer || !ports.synapse) return { result: 'heartbeat', sent: false, next: false };
  const now = ports.clock.now();
  const messageId = heartbeatMessageId(head.taskId, beat.claim, beat.beat);
  const body = JSON.stringify(
    composeMessage(
      'p2p:heartbeat',
      {
        task_id: config.synapse.remoteTaskId,
        status: head.state,
        ...(head.progress !== undefined ? { progress: head.progress } : {}),
        interval: options.heartbeatSeconds,
      },
      {
        sender: ports.synapse.self,
        recipient: { agent_id: peer.peerId },
        task_id: config.synapse.remoteTaskId,
        message_id: messageId,
        timestamp: now,
      },
    ),
  );
  const result = await ports.sender.post({
    url: peer.endpoint,
    body,
    headers: { 'Content-Type': 'application/json', ...signForPeer(peer, body, messageId, now.getTime()) },
    ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
  });
  await ports.queue.enqueue(
    [{ ...message, heartbeat: { claim: beat.claim, beat: beat.beat + 1 } }],
    options.heartbeatSeconds,
  );
  const sent = result.outcome === 'delivered';
  return { result: 'heartbeat', sent, next: true, ...(result.error ? { error: result.error } : {}) };
};
