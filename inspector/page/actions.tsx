/**
 * What can be done on a task, by its state: answer a question (one input per missing field, or free
 * text), decide (approve / reject with notes), cancel, send the agent a message. An A2A task is acted on
 * through A2A (SendMessage / CancelTask); a Synapse task this hub requested, through the Synapse requester
 * API; a Synapse task this hub executes is the peer's to answer.
 */
import { useState } from 'preact/hooks';
import type { InspectedEvent, TaskFacts } from '../../shared/app/inspector/read-model.ts';
import { isTerminal } from '../../shared/domain/states.ts';
import type { Part, StreamResponse, Task } from './a2a.ts';
import { type ApiError, api } from './api.ts';
import { taskHref } from './router.ts';

interface MissingField {
  field: string;
  reason?: string;
  suggestedValue?: unknown;
}

const lastOf = (events: readonly InspectedEvent[], type: string) => {
  for (let i = events.length - 1; i >= 0; i--) if (events[i]!.type === type) return events[i];
  return undefined;
};

function missingFieldsOf(e: InspectedEvent | undefined): MissingField[] {
  const m = e?.data?.missingFields;
  if (!Array.isArray(m)) return [];
  return m.filter(
    (f): f is MissingField => !!f && typeof f === 'object' && typeof (f as MissingField).field === 'string',
  );
}

type Result = { ok: true; text: string; link?: string } | { ok: false; text: string };

const taskOf = (r: StreamResponse | Task | undefined): Task | undefined =>
  r && 'task' in r && r.task ? r.task : r && 'id' in r && 'status' in r ? (r as Task) : undefined;

export function Actions({
  facts,
  events,
  onDone,
}: {
  facts: TaskFacts;
  events: readonly InspectedEvent[];
  onDone: () => void;
}) {
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<Result | undefined>();
  const [fields, setFields] = useState<Record<string, string>>({});
  const [answer, setAnswer] = useState('');
  const [notes, setNotes] = useState('');
  const [message, setMessage] = useState('');

  const terminal = isTerminal(facts.state);
  const peerDecides = facts.protocol === 'synapse' && facts.role === 'executor';
  const synapse = facts.protocol === 'synapse' && facts.role === 'requester';
  const needsInfo = facts.state === 'info_needed';
  const deciding = facts.state === 'need_human' || facts.state === 'human_deciding';
  const waiting = needsInfo || deciding;
  const missing = needsInfo ? missingFieldsOf(lastOf(events, 'need_info')) : [];
  const humanEvent = deciding ? lastOf(events, 'need_human') : undefined;
  const options = Array.isArray(humanEvent?.data?.options)
    ? (humanEvent.data.options as { value?: unknown; confidence?: unknown }[])
    : [];
  const question =
    humanEvent?.data?.question ??
    humanEvent?.message?.parts
      .map((p) => p.text)
      .filter(Boolean)
      .join(' ') ??
    humanEvent?.reason?.message;
  const disabled = busy || peerDecides;

  const act = async (what: string, fn: () => Promise<Result>) => {
    setBusy(true);
    setResult(undefined);
    try {
      setResult(await fn());
    } catch (e) {
      setResult({ ok: false, text: `${what}: ${(e as ApiError).message}` });
    } finally {
      setBusy(false);
      onDone();
    }
  };

  const sendOnTask = async (parts: Part[], body: unknown, what: string): Promise<Result> => {
    if (synapse) {
      await api.synapseAnswer(facts.taskId, body);
      return { ok: true, text: `${what} sent to the peer.` };
    }
    const r = await api.sendMessage(parts, { taskId: facts.taskId, contextId: facts.contextId });
    const t = taskOf(r);
    return {
      ok: true,
      text: `${what} sent${t ? `; the task is ${t.status.state.replace('TASK_STATE_', '').toLowerCase().replace(/_/g, ' ')}` : ''}.`,
    };
  };

  if (terminal)
    return (
      <section class="card actions" aria-labelledby="act-h">
        <h2 id="act-h">Act</h2>
        <p class="muted">The task is finished: nothing can change it any more.</p>
        <NewInContext contextId={facts.contextId} />
      </section>
    );

  return (
    <section class="card actions" aria-labelledby="act-h">
      <h2 id="act-h">Act</h2>
      {peerDecides ? (
        <p class="note">
          The peer answers this task: this hub executes it for {facts.peer ?? 'a Synapse peer'}.
        </p>
      ) : null}
      {result ? (
        result.ok ? (
          <p class="ok" role="status">
            {result.text} {result.link ? <a href={result.link}>Open the new task</a> : null}
          </p>
        ) : (
          <p class="error" role="alert">
            {result.text}
          </p>
        )
      ) : null}

      {needsInfo ? (
        <form
          data-testid="answer-form"
          class="stack"
          aria-label="Answer the agent's question"
          onSubmit={(e) => {
            e.preventDefault();
            if (missing.length > 0) {
              const provided: Record<string, string> = {};
              for (const f of missing) {
                const v = fields[f.field] ?? '';
                if (v !== '') provided[f.field] = v;
              }
              const summary = Object.entries(provided)
                .map(([k, v]) => `${k}=${v}`)
                .join(', ');
              void act('The answer', () =>
                sendOnTask(
                  [{ text: summary || '(no value)' }, { data: { provided_fields: provided } }],
                  { fields: provided },
                  'The answer',
                ),
              ).then(() => setFields({}));
            } else {
              void act('The answer', () =>
                sendOnTask([{ text: answer }], { text: answer }, 'The answer'),
              ).then(() => setAnswer(''));
            }
          }}
        >
          <h3>The agent needs information</h3>
          {missing.length > 0 ? (
            missing.map((f) => {
              const idf = `field-${f.field}`;
              return (
                <div class="field" key={f.field}>
                  <label for={idf}>{f.field}</label>
                  <input
                    id={idf}
                    name={f.field}
                    disabled={disabled}
                    placeholder={f.suggestedValue !== undefined ? String(f.suggestedValue) : ''}
                    aria-describedby={f.reason ? `${idf}-hint` : undefined}
                    value={fields[f.field] ?? ''}
                    onInput={(e) => setFields({ ...fields, [f.field]: e.currentTarget.value })}
                  />
                  {f.reason ? (
                    <small id={`${idf}-hint`} class="hint">
                      {f.reason}
                    </small>
                  ) : null}
                </div>
              );
            })
          ) : (
            <div class="field">
              <label for="answer-text">Answer</label>
              <textarea
                id="answer-text"
                rows={3}
                disabled={disabled}
                value={answer}
                onInput={(e) => setAnswer(e.currentTarget.value)}
              />
            </div>
          )}
          <button type="submit" class="primary" disabled={disabled}>
            Send the answer
          </button>
        </form>
      ) : null}

      {deciding ? (
        <fieldset class="stack decision">
          <legend>A human decision is needed</legend>
          {typeof question === 'string' ? <p>{question}</p> : null}
          {options.length ? (
            <p>
              Options:{' '}
              {options
                .map(
                  (o) =>
                    `${String(o.value)}${o.confidence !== undefined ? ` (confidence ${String(o.confidence)})` : ''}`,
                )
                .join(', ')}
            </p>
          ) : null}
          <div class="field">
            <label for="decision-notes">Notes</label>
            <textarea
              id="decision-notes"
              data-testid="decision-notes"
              rows={2}
              disabled={disabled}
              value={notes}
              onInput={(e) => setNotes(e.currentTarget.value)}
            />
          </div>
          <div class="row">
            {(['approve', 'reject'] as const).map((decision) => (
              <button
                key={decision}
                type="button"
                data-testid={decision}
                class={decision === 'approve' ? 'primary' : 'danger'}
                disabled={disabled}
                onClick={() => {
                  const body = { decision, ...(notes ? { notes } : {}) };
                  void act(`The ${decision === 'approve' ? 'approval' : 'rejection'}`, () =>
                    sendOnTask([{ data: body }], body, decision === 'approve' ? 'Approved' : 'Rejected'),
                  ).then(() => setNotes(''));
                }}
              >
                {decision === 'approve' ? 'Approve' : 'Reject'}
              </button>
            ))}
          </div>
        </fieldset>
      ) : null}

      {!needsInfo ? (
        <form
          class="stack"
          aria-label="Message to the agent"
          onSubmit={(e) => {
            e.preventDefault();
            const text = message.trim();
            if (!text) return;
            if (waiting)
              void act('The message', () => sendOnTask([{ text }], { text }, 'The message')).then(() =>
                setMessage(''),
              );
            else
              void act('The message', async () => {
                const r = await api.sendMessage([{ text }], { contextId: facts.contextId });
                const t = taskOf(r);
                return t
                  ? { ok: true, text: 'A new task was started in this context.', link: taskHref(t.id) }
                  : { ok: true, text: 'The agent answered without a task.' };
              }).then(() => setMessage(''));
          }}
        >
          <div class="field">
            <label for="agent-message">
              {waiting ? 'Message (sent as the answer)' : 'Message (starts a new task in this context)'}
            </label>
            <textarea
              id="agent-message"
              rows={2}
              disabled={disabled || (synapse && !waiting)}
              value={message}
              onInput={(e) => setMessage(e.currentTarget.value)}
            />
          </div>
          {synapse && !waiting ? (
            <small class="hint">
              A Synapse task's context belongs to its exchange with {facts.peer ?? 'the peer'}: start a new
              task from the task list.
            </small>
          ) : null}
          <button type="submit" disabled={disabled || (synapse && !waiting) || !message.trim()}>
            Send
          </button>
        </form>
      ) : null}

      <div class="row cancel-row">
        <button
          type="button"
          class="danger"
          data-testid="cancel-task"
          disabled={disabled}
          onClick={() => {
            if (!confirm(`Cancel task ${facts.taskId}?`)) return;
            void act('The cancellation', async () => {
              if (synapse) await api.synapseCancel(facts.taskId);
              else await api.cancelTask(facts.taskId);
              return { ok: true, text: 'The task was cancelled.' };
            });
          }}
        >
          Cancel the task
        </button>
      </div>
    </section>
  );
}

function NewInContext({ contextId }: { contextId: string }) {
  const [text, setText] = useState('');
  const [result, setResult] = useState<Result | undefined>();
  return (
    <form
      class="stack"
      aria-label="New task in this context"
      onSubmit={async (e) => {
        e.preventDefault();
        if (!text.trim()) return;
        try {
          const t = taskOf(await api.sendMessage([{ text }], { contextId }));
          setResult(
            t
              ? { ok: true, text: 'A new task was started in this context.', link: taskHref(t.id) }
              : { ok: true, text: 'The agent answered without a task.' },
          );
          setText('');
        } catch (err) {
          setResult({ ok: false, text: (err as ApiError).message });
        }
      }}
    >
      <div class="field">
        <label for="ctx-message">Message (starts a new task in this context)</label>
        <textarea id="ctx-message" rows={2} value={text} onInput={(e) => setText(e.currentTarget.value)} />
      </div>
      <button type="submit" disabled={!text.trim()}>
        Send
      </button>
      {result ? (
        <p class={result.ok ? 'ok' : 'error'} role={result.ok ? 'status' : 'alert'}>
          {result.text} {result.ok && result.link ? <a href={result.link}>Open the new task</a> : null}
        </p>
      ) : null}
    </form>
  );
}
