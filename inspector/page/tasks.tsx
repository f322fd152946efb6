/**
 * The task list: ListTasks with filters and pages, polled every 2 s for changes (statusTimestampAfter =
 * the newest status timestamp seen, inclusive, so tasks are de-duplicated by id), and a form starting a
 * new task. A v1.0 Task carries no creation time nor the skill it was asked for: the read API's facts of
 * the tasks shown give them (`GET /hub/tasks?ids=…`, asked once per task: they never change).
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { TaskFacts } from '../../shared/app/inspector/read-model.ts';
import { A2A_STATES, stateLabel, type Task, textOf } from './a2a.ts';
import { Alert } from './alert.tsx';
import { type ApiError, api, type ListTasksResult } from './api.ts';
import { StateBadge } from './badge.tsx';
import { clip, relative, shortId, stamp } from './format.ts';
import { announce } from './live.ts';
import { PartsView } from './parts.tsx';
import { taskHref } from './router.ts';

const POLL_MS = 2000;
const byStatusDesc = (a: Task, b: Task) => (b.status.timestamp ?? '').localeCompare(a.status.timestamp ?? '');

interface Filters {
  status: string;
  contextId: string;
}

function useNow(ms: number): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(t);
  }, [ms]);
  return now;
}

/** The skill the request named, and what it said. */
function SkillCell({ facts }: { facts: TaskFacts | undefined }) {
  if (!facts) return <span class="muted">…</span>;
  if (!facts.skill && !facts.request) return <span class="muted">—</span>;
  return (
    <>
      {facts.skill ? <span class="skill">{facts.skill}</span> : null}
      {facts.skill && facts.request ? ' · ' : null}
      {facts.request ? <span class="muted">{clip(facts.request, 40)}</span> : null}
    </>
  );
}

/** How long ago a task was made, without "ago": "42 s", "3 min", "2 h", "5 d". */
const age = (at: string, now: number): string => relative(at, now).replace(/ ago$/, '');

export function TasksView() {
  const [filters, setFilters] = useState<Filters>({ status: '', contextId: '' });
  const [draft, setDraft] = useState<Filters>(filters);
  /** Tokens of the pages before the current one; the current page's token last. */
  const [tokens, setTokens] = useState<string[]>(['']);
  const [page, setPage] = useState<ListTasksResult | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [loading, setLoading] = useState(false);
  const [changed, setChanged] = useState<Set<string>>(new Set());
  const newest = useRef<string | undefined>(undefined);
  const [facts, setFacts] = useState<ReadonlyMap<string, TaskFacts>>(new Map());
  const asked = useRef(new Set<string>());
  const now = useNow(5000);
  const pageToken = tokens[tokens.length - 1] ?? '';

  // the page itself
  useEffect(() => {
    let stale = false;
    setLoading(true);
    api
      .listTasks({ status: filters.status, contextId: filters.contextId, pageToken })
      .then((r) => {
        if (stale) return;
        setPage(r);
        setError(undefined);
        setChanged(new Set());
        const top = r.tasks
          .map((t) => t.status.timestamp ?? '')
          .sort()
          .pop();
        if (!pageToken || !newest.current) newest.current = top || new Date().toISOString();
      })
      .catch((e: ApiError) => !stale && setError(e.message))
      .finally(() => !stale && setLoading(false));
    return () => {
      stale = true;
    };
  }, [filters, pageToken]);

  // the facts of tasks shown for the first time: when each was made, what it was asked
  useEffect(() => {
    const unknown = (page?.tasks ?? []).map((t) => t.id).filter((id) => !asked.current.has(id));
    if (unknown.length === 0) return;
    for (const id of unknown) asked.current.add(id);
    api
      .facts(unknown)
      .then((r) => setFacts((known) => new Map([...known, ...r.tasks.map((f) => [f.taskId, f] as const)])))
      .catch(() => {
        // shown without them; asked again when the page shows them again
        for (const id of unknown) asked.current.delete(id);
      });
  }, [page]);

  // live: changes since the newest status seen, merged into the first page
  useEffect(() => {
    if (pageToken) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;
    const tick = async () => {
      if (stopped) return;
      if (document.visibilityState === 'visible' && newest.current) {
        try {
          const r = await api.listTasks({
            status: filters.status,
            contextId: filters.contextId,
            statusTimestampAfter: newest.current,
          });
          if (stopped) return;
          mergeChanges(r.tasks);
        } catch {
          // the next tick tries again; the page's own error stays
        }
      }
      if (!stopped) timer = setTimeout(tick, POLL_MS);
    };
    const mergeChanges = (tasks: Task[]) => {
      setPage((p) => {
        if (!p) return p;
        const known = new Map(p.tasks.map((t) => [t.id, t]));
        const fresh: Task[] = [];
        let added = 0;
        for (const t of tasks) {
          const old = known.get(t.id);
          if (old && old.status.timestamp === t.status.timestamp && old.status.state === t.status.state)
            continue;
          if (!old) added++;
          fresh.push(t);
        }
        for (const t of tasks)
          if ((t.status.timestamp ?? '') > (newest.current ?? '')) newest.current = t.status.timestamp;
        if (fresh.length === 0) return p;
        const ids = new Set(fresh.map((t) => t.id));
        setChanged(ids);
        // the highlight fades once read
        setTimeout(() => setChanged((c) => (c === ids ? new Set() : c)), 5000);
        announce(`${fresh.length} task${fresh.length === 1 ? '' : 's'} changed`);
        const merged = [...fresh, ...p.tasks.filter((t) => !ids.has(t.id))].sort(byStatusDesc);
        return { ...p, tasks: merged, totalSize: p.totalSize + added };
      });
    };
    const onVisible = () => {
      if (document.visibilityState === 'visible') {
        clearTimeout(timer);
        void tick();
      }
    };
    timer = setTimeout(tick, POLL_MS);
    document.addEventListener('visibilitychange', onVisible);
    return () => {
      stopped = true;
      clearTimeout(timer);
      document.removeEventListener('visibilitychange', onVisible);
    };
  }, [filters, pageToken]);

  const apply = (f: Filters) => {
    newest.current = undefined;
    setFilters(f);
    setTokens(['']);
  };

  return (
    <>
      <div class="page-head">
        <h1>Tasks</h1>
        <NewTask />
      </div>
      <form
        class="filters"
        aria-label="Filter tasks"
        onSubmit={(e) => {
          e.preventDefault();
          apply(draft);
        }}
      >
        <label>
          State
          <select
            value={draft.status}
            onChange={(e) => {
              const f = { ...draft, status: e.currentTarget.value };
              setDraft(f);
              apply(f);
            }}
          >
            <option value="">any</option>
            {A2A_STATES.map((s) => (
              <option key={s} value={s}>
                {stateLabel(s)}
              </option>
            ))}
          </select>
        </label>
        <label>
          Context id
          <input
            type="search"
            value={draft.contextId}
            placeholder="any context"
            onInput={(e) => setDraft({ ...draft, contextId: e.currentTarget.value.trim() })}
          />
        </label>
        <button type="submit">Apply</button>
        <span class="muted count" aria-live="off">
          {page ? `${page.totalSize.toLocaleString()} task${page.totalSize === 1 ? '' : 's'}` : ''}
          {loading ? ' · loading…' : ''}
        </span>
      </form>
      <Alert message={error} />
      <div class="table-wrap">
        <table class="tasks">
          <caption class="sr-only">Tasks, most recently changed first</caption>
          <thead>
            <tr>
              <th scope="col">State</th>
              <th scope="col">Task</th>
              <th scope="col">Skill · request</th>
              <th scope="col">Context</th>
              <th scope="col">Age</th>
              <th scope="col">Last change</th>
              <th scope="col">Status message</th>
            </tr>
          </thead>
          <tbody>
            {page?.tasks.map((t) => (
              <tr
                key={t.id}
                data-testid="task-row"
                data-task-id={t.id}
                data-state={t.status.state}
                class={changed.has(t.id) ? 'changed' : undefined}
              >
                <td>
                  <StateBadge a2a={t.status.state} />
                </td>
                <td class="mono">
                  <a
                    href={taskHref(t.id)}
                    title={t.id}
                    onKeyDown={(e) => {
                      // Space opens the task too, as on a button
                      if (e.key === ' ') {
                        e.preventDefault();
                        location.hash = taskHref(t.id);
                      }
                    }}
                  >
                    {shortId(t.id, 18)}
                  </a>
                </td>
                <td class="ask">
                  <SkillCell facts={facts.get(t.id)} />
                </td>
                <td class="mono" title={t.contextId}>
                  {shortId(t.contextId, 12)}
                </td>
                <td title={stamp(facts.get(t.id)?.createdAt)}>
                  {facts.get(t.id) ? (
                    <time dateTime={facts.get(t.id)!.createdAt}>{age(facts.get(t.id)!.createdAt, now)}</time>
                  ) : (
                    <span class="muted">…</span>
                  )}
                </td>
                <td title={stamp(t.status.timestamp)}>
                  <time dateTime={t.status.timestamp}>{relative(t.status.timestamp, now)}</time>
                </td>
                <td class="msg">{clip(textOf(t.status.message), 90) || <span class="muted">—</span>}</td>
              </tr>
            ))}
            {page && page.tasks.length === 0 ? (
              <tr>
                <td colSpan={6} class="empty">
                  No task matches.
                </td>
              </tr>
            ) : null}
          </tbody>
        </table>
      </div>
      <nav class="pager" aria-label="Pages">
        <button type="button" disabled={tokens.length <= 1} onClick={() => setTokens(tokens.slice(0, -1))}>
          ← Previous
        </button>
        <span class="muted">Page {tokens.length}</span>
        <button
          type="button"
          disabled={!page?.nextPageToken}
          onClick={() => page?.nextPageToken && setTokens([...tokens, page.nextPageToken])}
        >
          Next →
        </button>
      </nav>
    </>
  );
}

/** A text message to the agent: a new task, then its page (or the agent's direct answer, inline). */
function NewTask() {
  const [text, setText] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const [reply, setReply] = useState<Task['status']['message'] | undefined>();
  return (
    <div class="new-task">
      <form
        data-testid="new-task"
        aria-label="New task"
        onSubmit={async (e) => {
          e.preventDefault();
          if (!text.trim()) return;
          setBusy(true);
          setError(undefined);
          setReply(undefined);
          try {
            const r = await api.sendMessage([{ text }]);
            const task =
              'task' in r && r.task ? r.task : 'id' in r && 'status' in r ? (r as Task) : undefined;
            if (task) location.hash = taskHref(task.id);
            else if ('message' in r && r.message) setReply(r.message);
            setText('');
          } catch (err) {
            setError((err as ApiError).message);
          } finally {
            setBusy(false);
          }
        }}
      >
        <label for="new-task-text" class="sr-only">
          Message for a new task
        </label>
        <input
          id="new-task-text"
          type="text"
          placeholder="Ask the agent something…"
          value={text}
          onInput={(e) => setText(e.currentTarget.value)}
        />
        <button type="submit" class="primary" disabled={busy || !text.trim()}>
          {busy ? 'Sending…' : 'New task'}
        </button>
      </form>
      <Alert message={error} />
      {reply ? (
        <div class="card reply" role="status">
          <strong>The agent answered directly (no task):</strong>
          <PartsView parts={reply.parts} />
        </div>
      ) : null}
    </div>
  );
}
