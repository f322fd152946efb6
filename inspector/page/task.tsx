/**
 * One task: its facts, its state machine, what can be done on it, its timeline (every event, paged in
 * by 1000 from the read API, then followed live through SubscribeToTask), its deliveries and, for a
 * Synapse task, its messages with the peer.
 */
import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type {
  InspectedEvent,
  PeerMessages,
  TaskDeliveries,
  TaskFacts,
} from '../../shared/app/inspector/read-model.ts';
import { isTerminal, type SynapseState } from '../../shared/domain/states.ts';
import type { TransitionEvent } from '../../shared/domain/transitions.ts';
import { Actions } from './actions.tsx';
import { Alert } from './alert.tsx';
import { type ApiError, api } from './api.ts';
import { a2aOf, StateBadge } from './badge.tsx';
import { Deliveries, PeerMessagesView } from './deliveries.tsx';
import { relative, stamp } from './format.ts';
import { announce } from './live.ts';
import { taskHref } from './router.ts';
import { subscribeToTask } from './sse.ts';
import { type Edge, StateMachine } from './state-machine.tsx';
import { Timeline } from './timeline.tsx';

const PAGE = 1000;
const SIDE_POLL_MS = 3000;
/** Attempt statuses after which another attempt (or the dead-letter) follows. */
const UNSETTLED = new Set(['sending', 'retrying', 'interrupted', 'released']);
const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(t);
      resolve();
    });
  });

type Live = 'off' | 'connecting' | 'live' | 'polling' | 'ended';

/** What a task was asked (its skill and request): kept from the first page when later pages omit it. */
const askedOf = (facts: TaskFacts | undefined): Pick<TaskFacts, 'skill' | 'request'> => ({
  ...(facts?.skill ? { skill: facts.skill } : {}),
  ...(facts?.request ? { request: facts.request } : {}),
});

export function TaskView({ id }: { id: string }) {
  const [facts, setFacts] = useState<TaskFacts | undefined>();
  const [events, setEvents] = useState<InspectedEvent[]>([]);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<string | undefined>();
  const [deliveries, setDeliveries] = useState<TaskDeliveries | undefined>();
  const [deliveriesError, setDeliveriesError] = useState<string | undefined>();
  const [peer, setPeer] = useState<PeerMessages | undefined>();
  const [peerError, setPeerError] = useState<string | undefined>();
  const [live, setLive] = useState<Live>('off');
  const [now, setNow] = useState(Date.now());

  const list = useRef<InspectedEvent[]>([]);
  const last = useRef(0);
  const factsRef = useRef<TaskFacts | undefined>(undefined);
  const queue = useRef<Promise<unknown>>(Promise.resolve());
  const sideTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);

  /** Whether a delivery may still change: its last attempt is not an outcome yet (a retry is queued…). */
  const pendingDelivery = useRef(false);

  const loadSide = useCallback(
    (f: TaskFacts) => {
      api
        .deliveries(id)
        .then((d) => {
          setDeliveries(d);
          setDeliveriesError(undefined);
          const last = new Map<string, string>();
          for (const a of d.attempts) last.set(`${a.configId}\u0000${a.version}`, a.status);
          pendingDelivery.current = [...last.values()].some((s) => UNSETTLED.has(s));
        })
        .catch((e: ApiError) => setDeliveriesError(e.message));
      if (f.protocol === 'synapse')
        api
          .peerMessages(id)
          .then((p) => {
            setPeer(p);
            setPeerError(undefined);
          })
          .catch((e: ApiError) => setPeerError(e.message));
    },
    [id],
  );

  // deliveries go on after the task's last change (retries, the final state's push): read them again
  // while one is unsettled, the task runs, or it changed in the last two minutes
  useEffect(() => {
    const t = setInterval(() => {
      const f = factsRef.current;
      if (!f || document.visibilityState !== 'visible') return;
      const recent = Date.now() - Date.parse(f.statusAt) < 120_000;
      if (pendingDelivery.current || !isTerminal(f.state) || recent) loadSide(f);
    }, SIDE_POLL_MS);
    return () => clearInterval(t);
  }, [loadSide]);

  const scheduleSide = useCallback(
    (f: TaskFacts) => {
      clearTimeout(sideTimer.current);
      sideTimer.current = setTimeout(() => loadSide(f), 800);
    },
    [loadSide],
  );

  /** Reads every event after the last one held, page by page; one at a time. */
  const catchUp = useCallback(
    (progressive = false): Promise<number> => {
      const run = async () => {
        let added = 0;
        for (;;) {
          const page = await api.events(id, last.current, PAGE);
          factsRef.current = page.task;
          // what the task was asked comes with the first page only (docs/inspector.md#the-read-api)
          setFacts((prev) => ({ ...askedOf(prev), ...page.task }));
          const fresh = page.events.filter((e) => e.version > last.current);
          if (fresh.length) {
            list.current = list.current.concat(fresh);
            last.current = fresh[fresh.length - 1]!.version;
            added += fresh.length;
            if (progressive) setEvents(list.current);
          }
          if (page.nextAfter === null || page.nextAfter === undefined || page.events.length === 0) break;
          last.current = Math.max(last.current, page.nextAfter);
        }
        setEvents(list.current);
        return added;
      };
      const p = queue.current.then(run, run);
      queue.current = p.catch(() => undefined);
      return p;
    },
    [id],
  );

  useEffect(() => {
    const ctrl = new AbortController();
    const { signal } = ctrl;
    const tick = setInterval(() => setNow(Date.now()), 1000);
    list.current = [];
    last.current = 0;

    const follow = async () => {
      let backoff = 1000;
      while (!signal.aborted && factsRef.current && !isTerminal(factsRef.current.state)) {
        setLive('connecting');
        let opened = false;
        try {
          await subscribeToTask(
            id,
            () => {
              if (!opened) setLive('live');
              opened = true;
              backoff = 1000;
              const before = factsRef.current?.state;
              void catchUp().then((n) => {
                const f = factsRef.current;
                if (!f) return;
                scheduleSide(f);
                if (isTerminal(f.state)) setLive('ended');
                if (n > 0)
                  announce(
                    `${n} new event${n === 1 ? '' : 's'}${f.state !== before ? `; the task is now ${f.state.replace(/_/g, ' ')}` : ''}`,
                  );
              });
            },
            signal,
          );
        } catch {
          if (signal.aborted) return;
          // the stream could not be opened, or broke: catch up by polling until it can be again
          setLive('polling');
        }
        if (signal.aborted) return;
        try {
          await api.getTask(id);
          const n = await catchUp();
          if (factsRef.current) scheduleSide(factsRef.current);
          if (n > 0) announce(`${n} new event${n === 1 ? '' : 's'}`);
        } catch {
          // tried again below
        }
        await sleep(backoff, signal);
        backoff = Math.min(backoff * 2, 10_000);
      }
      if (!signal.aborted) setLive('ended');
    };

    setLoading(true);
    catchUp(true)
      .then(() => {
        setError(undefined);
        if (factsRef.current) loadSide(factsRef.current);
        void follow();
      })
      .catch((e: ApiError) => setError(e.message))
      .finally(() => setLoading(false));
    return () => {
      ctrl.abort();
      clearInterval(tick);
      clearTimeout(sideTimer.current);
    };
  }, [id, catchUp, loadSide, scheduleSide]);

  const refresh = useCallback(() => {
    void catchUp()
      .then(() => factsRef.current && loadSide(factsRef.current))
      .catch((e: ApiError) => setError(e.message));
  }, [catchUp, loadSide]);

  const { visited, taken } = useMemo(() => {
    const visited = new Set<SynapseState>();
    const seen = new Map<string, Edge>();
    for (const e of events) {
      visited.add(e.to);
      if (e.from) visited.add(e.from);
      if (e.from && e.from !== e.to && e.type !== 'created')
        seen.set(`${e.from}>${e.to}>${e.type}`, { event: e.type as TransitionEvent, from: e.from, to: e.to });
    }
    return { visited, taken: [...seen.values()] };
  }, [events]);

  if (error && !facts)
    return (
      <section class="card">
        <h1>Task {id}</h1>
        <p class="error" role="alert">
          {error}
        </p>
        <a href="#/tasks">Back to the tasks</a>
      </section>
    );
  if (!facts) return <p class="muted">Loading the task…</p>;

  const a2a = a2aOf(facts.state);
  const liveText: Record<Live, string> = {
    off: '',
    connecting: 'connecting…',
    live: '● live',
    polling: 'reconnecting…',
    ended: 'finished: no more changes',
  };
  return (
    <>
      <nav class="crumbs" aria-label="Breadcrumb">
        <a href="#/tasks">Tasks</a> <span aria-hidden="true">/</span> <span class="mono">{id}</span>
      </nav>
      <div class="page-head">
        <h1>
          Task <span class="mono small-h">{id}</span>
        </h1>
        <StateBadge a2a={a2a} internal={facts.state} testid="task-state" />
        <span class={`live-dot ${live}`}>{liveText[live]}</span>
      </div>
      <Alert message={error} />
      <section class="card facts" aria-label="Facts">
        <dl>
          <div>
            <dt>State</dt>
            <dd>
              {facts.state.replace(/_/g, ' ')} <span class="muted">({a2a.replace('TASK_STATE_', '')})</span>
            </dd>
          </div>
          <div>
            <dt>Context</dt>
            <dd class="mono">{facts.contextId}</dd>
          </div>
          <div>
            <dt>Role / protocol</dt>
            <dd>
              {facts.role} · {facts.protocol}
            </dd>
          </div>
          {facts.peer ? (
            <div>
              <dt>Peer</dt>
              <dd>{facts.peer}</dd>
            </div>
          ) : null}
          <div>
            <dt>Skill · request</dt>
            <dd>
              {facts.skill ?? (facts.request ? null : '—')}
              {facts.skill && facts.request ? ' · ' : null}
              {facts.request ? <span class="muted">{facts.request}</span> : null}
            </dd>
          </div>
          <div>
            <dt>Created</dt>
            <dd title={stamp(facts.createdAt)}>
              {stamp(facts.createdAt)} <span class="muted">({relative(facts.createdAt, now)})</span>
            </dd>
          </div>
          <div>
            <dt>Last change</dt>
            <dd title={stamp(facts.statusAt)}>{relative(facts.statusAt, now)}</dd>
          </div>
          <div>
            <dt>Deadline</dt>
            <dd title={stamp(facts.deadlineAt)}>
              {isTerminal(facts.state)
                ? stamp(facts.deadlineAt)
                : Date.parse(facts.deadlineAt) < now
                  ? `passed ${relative(facts.deadlineAt, now)}`
                  : `${relative(facts.deadlineAt, now).replace(/^in /, '')} left`}
            </dd>
          </div>
          {facts.heartbeatAt ? (
            <div>
              <dt>Heartbeat</dt>
              <dd title={stamp(facts.heartbeatAt)}>{relative(facts.heartbeatAt, now)}</dd>
            </div>
          ) : null}
          {facts.leaseUntil ? (
            <div>
              <dt>Lease until</dt>
              <dd title={stamp(facts.leaseUntil)}>{relative(facts.leaseUntil, now)}</dd>
            </div>
          ) : null}
          {facts.reruns ? (
            <div>
              <dt>Reruns</dt>
              <dd>{facts.reruns}</dd>
            </div>
          ) : null}
          <div>
            <dt>Version</dt>
            <dd>{facts.version}</dd>
          </div>
          {facts.progress !== undefined ? (
            <div class="wide">
              <dt id="progress-label">Progress</dt>
              <dd>
                <progress max={100} value={facts.progress} aria-labelledby="progress-label" />{' '}
                {facts.progress}%
              </dd>
            </div>
          ) : null}
        </dl>
      </section>
      <div class="two">
        <section class="card" aria-labelledby="sm-h">
          <h2 id="sm-h">State machine</h2>
          <StateMachine current={facts.state} visited={visited} taken={taken} />
        </section>
        <Actions facts={facts} events={events} onDone={refresh} />
      </div>
      <Timeline events={events} loading={loading} />
      <Deliveries data={deliveries} error={deliveriesError} typeOf={(v) => events[v - 1]?.type} />
      {facts.protocol === 'synapse' ? <PeerMessagesView data={peer} error={peerError} /> : null}
      <p>
        <a href={taskHref(id)} class="muted small">
          Permalink
        </a>
      </p>
    </>
  );
}
