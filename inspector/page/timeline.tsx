/**
 * Every event of the task, in a virtualised list (@tanstack/virtual-core): only the rows in view (and a
 * few around) are in the DOM, each measured once rendered, so ten thousand events scroll smoothly.
 */
import {
  elementScroll,
  measureElement,
  observeElementOffset,
  observeElementRect,
  Virtualizer,
  type VirtualizerOptions,
} from '@tanstack/virtual-core';
import { useLayoutEffect, useReducer, useRef, useState } from 'preact/hooks';
import type { InspectedEvent } from '../../shared/app/inspector/read-model.ts';
import type { Part } from './a2a.ts';
import { delta, stamp } from './format.ts';
import { JsonTree } from './json-tree.tsx';
import { PartsView } from './parts.tsx';

const label = (s: string | null | undefined) => (s ? s.replace(/_/g, ' ') : '—');

type Opts = VirtualizerOptions<HTMLDivElement, HTMLLIElement>;

function useVirtualizer(count: number, scroller: { current: HTMLDivElement | null }) {
  const [, rerender] = useReducer((n: number) => n + 1, 0);
  const options: Opts = {
    count,
    getScrollElement: () => scroller.current,
    estimateSize: () => 64,
    overscan: 6,
    observeElementRect,
    observeElementOffset,
    scrollToFn: elementScroll,
    measureElement,
    onChange: () => rerender(undefined as never),
  };
  const [v] = useState(() => new Virtualizer<HTMLDivElement, HTMLLIElement>(options));
  v.setOptions(options);
  useLayoutEffect(() => v._didMount(), [v]);
  useLayoutEffect(() => {
    v._willUpdate();
  });
  return v;
}

function Data({ data }: { data: Record<string, unknown> }) {
  const missing = Array.isArray(data.missingFields)
    ? (data.missingFields as Record<string, unknown>[])
    : undefined;
  const options = Array.isArray(data.options) ? (data.options as Record<string, unknown>[]) : undefined;
  const principal = data.principal ?? data.decidedBy;
  return (
    <div class="ev-data">
      {principal !== undefined ? (
        <p class="ev-key">
          <span class="k">Decided by</span>{' '}
          <strong>{typeof principal === 'string' ? principal : JSON.stringify(principal)}</strong>
        </p>
      ) : null}
      {typeof data.notes === 'string' ? (
        <p class="ev-key">
          <span class="k">Notes</span> {data.notes}
        </p>
      ) : null}
      {missing?.length ? (
        <div class="ev-key">
          <span class="k">Missing fields</span>
          <ul class="fields">
            {missing.map((f, i) => (
              <li key={i}>
                <code>{String(f.field ?? '?')}</code>
                {f.reason ? ` — ${String(f.reason)}` : ''}
                {f.suggestedValue !== undefined ? (
                  <span class="muted"> (suggested: {String(f.suggestedValue)})</span>
                ) : null}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      {options?.length ? (
        <p class="ev-key">
          <span class="k">Options</span>{' '}
          {options
            .map(
              (o) =>
                `${String(o.value ?? o.label ?? '?')}${o.confidence !== undefined ? ` (${String(o.confidence)})` : ''}`,
            )
            .join(', ')}
        </p>
      ) : null}
      <JsonTree value={data} open={0} label="event data" />
    </div>
  );
}

function EventBody({ e }: { e: InspectedEvent }) {
  return (
    <div class="ev-body">
      {e.message ? (
        <div class="ev-msg">
          <span class={`role role-${e.message.role}`}>{e.message.role}</span>
          <PartsView parts={e.message.parts as Part[]} />
        </div>
      ) : null}
      {e.artifact ? (
        <div class="ev-art">
          <span class="k">Artifact</span>{' '}
          <strong>{e.artifact.artifact.name ?? e.artifact.artifact.artifactId}</strong>
          {e.artifact.append ? <span class="tag">append</span> : null}
          {e.artifact.lastChunk ? <span class="tag">last chunk</span> : null}
          <PartsView parts={e.artifact.artifact.parts as Part[]} />
        </div>
      ) : null}
      {e.progress !== undefined ? (
        <p class="ev-key">
          <span class="k">Progress</span> {e.progress}%
        </p>
      ) : null}
      {e.reason ? (
        <p class="ev-key reason">
          <span class="k">Reason</span> <code>{e.reason.code}</code> {e.reason.message}
        </p>
      ) : null}
      {e.data && Object.keys(e.data).length > 0 ? <Data data={e.data} /> : null}
    </div>
  );
}

export function Timeline({ events, loading }: { events: readonly InspectedEvent[]; loading: boolean }) {
  const scroller = useRef<HTMLDivElement>(null);
  const v = useVirtualizer(events.length, scroller);
  const items = v.getVirtualItems();
  // follow the tail: a reader at the end of the list sees live events arrive
  const atEnd = useRef(false);
  const shown = useRef(events.length);
  useLayoutEffect(() => {
    if (events.length > shown.current && atEnd.current && events.length > 0)
      v.scrollToIndex(events.length - 1, { align: 'end' });
    shown.current = events.length;
  }, [events.length, v]);
  return (
    <section aria-labelledby="timeline-title" class="card">
      <h2 id="timeline-title">
        Timeline{' '}
        <span class="muted small">
          {events.length.toLocaleString()} event{events.length === 1 ? '' : 's'}
          {loading ? ' · loading…' : ''}
        </span>
      </h2>
      <div
        class="timeline"
        ref={scroller}
        data-testid="timeline"
        onScroll={(e) => {
          const el = e.currentTarget;
          atEnd.current = el.scrollTop + el.clientHeight >= el.scrollHeight - 48;
        }}
      >
        <ol
          class="timeline-inner"
          aria-label="Task events, oldest first"
          style={{ height: `${v.getTotalSize()}px` }}
        >
          {items.map((item) => {
            const e = events[item.index]!;
            const prev = events[item.index - 1];
            return (
              <li
                key={e.version}
                data-index={item.index}
                ref={v.measureElement}
                class="ev"
                aria-setsize={events.length}
                aria-posinset={item.index + 1}
                data-testid="timeline-row"
                data-version={e.version}
                data-type={e.type}
                style={{ transform: `translateY(${item.start}px)` }}
              >
                <div class="ev-head">
                  <span class="ev-v mono">#{e.version}</span>
                  <time class="mono" dateTime={e.at}>
                    {stamp(e.at)}
                  </time>
                  <span class="ev-delta mono">{delta(prev?.at, e.at)}</span>
                  <span class="ev-type">{e.type}</span>
                  <span class="ev-trans">
                    {e.from === e.to ? label(e.to) : `${label(e.from)} → ${label(e.to)}`}
                  </span>
                </div>
                <EventBody e={e} />
              </li>
            );
          })}
        </ol>
      </div>
    </section>
  );
}
