/**
 * A delivery to a Synapse peer (docs/synapse-protocol.md): the p2p message of a task's event, signed
 * with the peer's first key, to the peer's configured endpoint, and how often it is retried.
 */
import type { DeliveryPolicy } from '../../domain/delivery.ts';
import type { TaskEvent } from '../../domain/task.ts';
import type { Clock } from '../../ports/clock.ts';
import type { DeliveryMessage } from '../../ports/delivery-queue.ts';
import type { StoredPushConfig } from '../../ports/push-config-store.ts';
import type { TaskRecord, TaskStore } from '../../ports/task-store.ts';
import { composeMessage } from '../../protocol/synapse/compose.ts';
import type { SynapseSender } from '../../protocol/synapse/envelope.ts';
import type { PeerDirectory } from '../../protocol/synapse/peers.ts';
import { signForPeer } from '../../protocol/synapse/signing.ts';
import { callbackMessageId, callbackOf, requesterMessageOf } from '../synapse/callbacks.ts';
import { attemptHeaders } from './push-body.ts';

/** The Synapse protocol's MaxRetries (docs/synapse-protocol.md#callbacks): a message to a Synapse peer is tried once and retried this many times. */
export const DEFAULT_SYNAPSE_MAX_RETRIES = 5;

/**
 * How a message to a Synapse peer is tried: the policy's backoff, MaxRetries after the first attempt, and
 * never two attempts within one second. Each attempt is signed anew, but the signature's timestamp counts
 * whole seconds and the body is the same on every attempt: two attempts signed in one second are the same
 * signed bytes, which the peer refuses as a replay (permission_denied) when it saw the first — one it
 * answered 503 after recording its signature (docs/synapse-protocol.md#signatures).
 */
export const synapsePolicyOf = (policy: DeliveryPolicy, maxRetries: number): DeliveryPolicy => ({
  ...policy,
  maxAttempts: maxRetries + 1,
  minDelaySeconds: Math.max(1, policy.minDelaySeconds ?? 0),
});

/** Where Synapse messages are signed: the peers' keys and this hub as the sender. */
export interface SynapseSigning {
  peers: () => Promise<PeerDirectory>;
  self: SynapseSender;
}

export interface CallbackPorts {
  store: Pick<TaskStore, 'events' | 'view'>;
  synapse?: SynapseSigning;
  clock: Clock;
}

/**
 * A Synapse callback: the p2p message of the event (its id the same on every attempt), signed with
 * the peer's first key, the timestamp of this attempt; undefined when there is nothing to send (a peer
 * no longer configured gets nothing).
 */
export const callbackRequestOf = async (
  ports: CallbackPorts,
  message: DeliveryMessage,
  record: TaskRecord,
  event: TaskEvent,
  config: StoredPushConfig,
): Promise<{ url: string; body: string; headers: Record<string, string> } | undefined> => {
  if (!config.synapse || !ports.synapse) return undefined;
  const peer = (await ports.synapse.peers()).peer(config.synapse.peerId);
  // an unknown peer, or one of another tenant (its reports could never find this task), gets nothing
  if (!peer || peer.tenant !== record.head.tenant) return undefined;
  const callback =
    record.head.role === 'requester'
      ? requesterMessageOf(event, {
          head: record.head,
          ...(event.type === 'submit'
            ? { request: (await ports.store.events(record, 0, 1))[0]?.message }
            : {}),
        })
      : callbackOf(
          event,
          config.synapse.remoteTaskId,
          event.type === 'complete'
            ? await ports.store.view(record, { includeArtifacts: true, historyLength: 0 })
            : undefined,
        );
  if (!callback) return undefined;
  const messageId = callbackMessageId(record.head.taskId, event.version);
  const body = JSON.stringify(
    composeMessage(callback.type, callback.payload, {
      sender: ports.synapse.self,
      recipient: { agent_id: peer.peerId },
      task_id: config.synapse.remoteTaskId,
      message_id: messageId,
      timestamp: event.at,
    }),
  );
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    ...signForPeer(peer, body, messageId, ports.clock.now().getTime()),
    ...attemptHeaders(message),
  };
  // to the peer's configured endpoint, whatever a message named (a peer cannot aim signed messages elsewhere)
  return { url: peer.endpoint, body, headers };
};
