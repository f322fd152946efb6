/** A task's deliveries (push notifications, Synapse messages) and, for a Synapse task, its peer messages. */
import type {
  InspectedAttempt,
  PeerMessages,
  TaskDeliveries,
} from '../../shared/app/inspector/read-model.ts';
import { duration, shortId, stamp } from './format.ts';

const BAD = new Set(['failed', 'interrupted', 'task_missing', 'not_deliverable', 'config_removed']);
const tone = (s: string) =>
  s === 'delivered' ? 'st-ok' : s === 'failed' ? 'st-bad' : BAD.has(s) || s === 'retrying' ? 'st-warn' : '';

export function AttemptStatus({ a }: { a: InspectedAttempt }) {
  return (
    <span class={`status-text ${tone(a.status)}`}>
      {a.status === 'failed' ? '✗ ' : a.status === 'delivered' ? '✓ ' : ''}
      {a.status.replace(/_/g, ' ')}
      {a.deadLetter ? ' · dead-lettered' : ''}
    </span>
  );
}

export function Deliveries({
  data,
  error,
  typeOf,
}: {
  data: TaskDeliveries | undefined;
  error?: string | undefined;
  /** The type of the task's event by version (what was delivered). */
  typeOf?: (version: number) => string | undefined;
}) {
  const groups = new Map<string, InspectedAttempt[]>();
  for (const a of data?.attempts ?? []) {
    const k = `${a.configId}\u0000${a.version}`;
    const g = groups.get(k) ?? [];
    g.push(a);
    groups.set(k, g);
  }
  return (
    <section class="card" aria-labelledby="deliveries-title">
      <h2 id="deliveries-title">Deliveries</h2>
      {error ? <p class="error">{error}</p> : null}
      {data && groups.size === 0 ? <p class="muted">No delivery: no push config, no message sent.</p> : null}
      {groups.size > 0 ? (
        <div class="table-wrap">
          <table class="deliveries">
            <thead>
              <tr>
                <th scope="col">Attempt</th>
                <th scope="col">Status</th>
                <th scope="col">HTTP</th>
                <th scope="col">Latency</th>
                <th scope="col">Started</th>
                <th scope="col">Error</th>
                <th scope="col">Retry in</th>
                <th scope="col">Dead-lettered</th>
              </tr>
            </thead>
            {[...groups.values()].map((list) => {
              const first = list[0]!;
              return (
                <tbody key={`${first.configId}-${first.version}`}>
                  <tr class="group">
                    <th scope="rowgroup" colSpan={8}>
                      Config <code>{first.configId}</code> · event #{first.version}
                      {typeOf?.(first.version) ? ` (${typeOf(first.version)})` : ''}
                    </th>
                  </tr>
                  {list.map((a) => (
                    <tr
                      key={`${a.redrive}-${a.attempt}`}
                      data-testid="delivery-row"
                      data-status={a.status}
                      class={a.status === 'failed' || a.deadLetter ? 'row-bad' : undefined}
                    >
                      <td>
                        #{a.attempt}
                        {a.redrive ? <span class="muted"> (redrive {a.redrive})</span> : null}
                      </td>
                      <td>
                        <AttemptStatus a={a} />
                      </td>
                      <td>{a.httpStatus ?? '—'}</td>
                      <td>{a.latencyMs !== undefined ? duration(a.latencyMs) : '—'}</td>
                      <td class="mono small">{stamp(a.startedAt)}</td>
                      <td class="msg">{a.error ?? '—'}</td>
                      <td>{a.retryInSeconds !== undefined ? duration(a.retryInSeconds * 1000) : '—'}</td>
                      <td>{a.deadLetter ? <strong class="bad">{a.deadLetter}</strong> : '—'}</td>
                    </tr>
                  ))}
                </tbody>
              );
            })}
          </table>
        </div>
      ) : null}
    </section>
  );
}

function attemptsSummary(list: InspectedAttempt[] | undefined, direction: string): string {
  if (direction === 'received') return '—';
  if (!list?.length) return 'queued';
  const last = list[list.length - 1]!;
  return `${list.length} attempt${list.length === 1 ? '' : 's'}, last ${last.status.replace(/_/g, ' ')}${last.httpStatus ? ` (HTTP ${last.httpStatus})` : ''}`;
}

export function PeerMessagesView({
  data,
  error,
}: {
  data: PeerMessages | undefined;
  error?: string | undefined;
}) {
  const peer = data?.peer ?? 'the peer';
  return (
    <section class="card" aria-labelledby="peer-title">
      <h2 id="peer-title">Messages with {peer}</h2>
      {error ? <p class="error">{error}</p> : null}
      {data && data.messages.length === 0 ? <p class="muted">No message yet.</p> : null}
      {data?.messages.length ? (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Direction</th>
                <th scope="col">Type</th>
                <th scope="col">Event</th>
                <th scope="col">Message id</th>
                <th scope="col">At</th>
                <th scope="col">Attempts</th>
              </tr>
            </thead>
            <tbody>
              {data.messages.map((m, i) => (
                <tr key={i} data-testid="peer-message" data-direction={m.direction} data-type={m.type}>
                  <td>
                    <span aria-hidden="true">{m.direction === 'sent' ? '→ ' : '← '}</span>
                    {m.direction}
                  </td>
                  <td>
                    <code>{m.type}</code>
                  </td>
                  <td>#{m.version}</td>
                  <td class="mono" title={m.messageId}>
                    {shortId(m.messageId, 12)}
                  </td>
                  <td class="mono small">{stamp(m.at)}</td>
                  <td>{attemptsSummary(m.attempts, m.direction)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </section>
  );
}
