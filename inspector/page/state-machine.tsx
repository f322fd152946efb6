/**
 * The task state machine, drawn from the transition table itself (shared/domain/transitions.ts): states
 * in columns by phase, the current state filled and named, the states this task visited and the edges it
 * took emphasised. The four "from any unfinished state" events (fail, cancel, timeout, heartbeat_lost)
 * would cross everything: they are drawn only when taken, and named under the drawing.
 */
import { SYNAPSE_STATES, type SynapseState } from '../../shared/domain/states.ts';
import { TRANSITION_RULES, type TransitionEvent } from '../../shared/domain/transitions.ts';

const W = 120;
const H = 30;
/** Columns: requested, working, waiting for the requester, answered, finished. */
const POS: Record<SynapseState, [number, number]> = {
  idle: [75, 40],
  pending: [75, 125],
  confirmed: [75, 210],
  executing: [250, 210],
  info_needed: [425, 40],
  need_human: [425, 125],
  human_deciding: [425, 295],
  info_provided: [600, 40],
  human_approved: [600, 165],
  human_rejected: [600, 295],
  completed: [790, 210],
  failed: [790, 125],
  cancelled: [790, 40],
  rejected: [790, 295],
};
const COLUMNS: [number, string][] = [
  [75, 'requested'],
  [250, 'working'],
  [425, 'waiting'],
  [600, 'answered'],
  [790, 'finished'],
];

export interface Edge {
  event: TransitionEvent;
  from: SynapseState;
  to: SynapseState;
}

/** Events allowed from (almost) every state: drawn only when taken. */
const isGlobal = (e: TransitionEvent) => TRANSITION_RULES[e].from.length >= SYNAPSE_STATES.length - 5;

/** Every drawn edge (self-loops and `same` rules left out), one per (from, to) pair. */
function edges(): Map<string, Edge[]> {
  const out = new Map<string, Edge[]>();
  for (const [event, rule] of Object.entries(TRANSITION_RULES) as [
    TransitionEvent,
    (typeof TRANSITION_RULES)[TransitionEvent],
  ][]) {
    if (rule.to === 'same') continue;
    for (const from of rule.from) {
      if (from === rule.to) continue;
      const key = `${from}>${rule.to}`;
      const list = out.get(key) ?? [];
      list.push({ event, from, to: rule.to });
      out.set(key, list);
    }
  }
  return out;
}
const ALL_EDGES = edges();
const GLOBAL_EVENTS = (Object.keys(TRANSITION_RULES) as TransitionEvent[]).filter(
  (e) => isGlobal(e) && TRANSITION_RULES[e].to !== 'same',
);

/** Where the segment from the centre of a box toward (dx, dy) leaves it. */
function exit(cx: number, cy: number, dx: number, dy: number): [number, number] {
  const sx = dx === 0 ? Number.POSITIVE_INFINITY : W / 2 / Math.abs(dx);
  const sy = dy === 0 ? Number.POSITIVE_INFINITY : H / 2 / Math.abs(dy);
  const s = Math.min(sx, sy);
  return [cx + dx * s, cy + dy * s];
}

function path(from: SynapseState, to: SynapseState): { d: string; mid: [number, number]; long: boolean } {
  const [x1, y1] = POS[from];
  const [x2, y2] = POS[to];
  const long = Math.abs(x2 - x1) > 200;
  if (x2 >= x1) {
    const [sx, sy] = exit(x1, y1, x2 - x1, y2 - y1);
    const [ex, ey] = exit(x2, y2, x1 - x2, y1 - y2);
    return { d: `M${sx},${sy}L${ex},${ey}`, mid: [(sx + ex) / 2, (sy + ey) / 2], long };
  }
  // a backward edge bows upward, off the forward one it may run beside
  const dx = x2 - x1;
  const dy = y2 - y1;
  const n = Math.hypot(dx, dy);
  let px = -dy / n;
  let py = dx / n;
  if (py > 0) {
    px = -px;
    py = -py;
  }
  const cx = (x1 + x2) / 2 + px * 45;
  const cy = (y1 + y2) / 2 + py * 45;
  const [sx, sy] = exit(x1, y1, cx - x1, cy - y1);
  const [ex, ey] = exit(x2, y2, cx - x2, cy - y2);
  return {
    d: `M${sx},${sy}Q${cx},${cy} ${ex},${ey}`,
    mid: [(sx + 2 * cx + ex) / 4, (sy + 2 * cy + ey) / 4],
    long,
  };
}

const label = (s: string) => s.replace(/_/g, ' ');

export function StateMachine({
  current,
  visited,
  taken,
}: {
  current: SynapseState;
  visited: ReadonlySet<SynapseState>;
  taken: readonly Edge[];
}) {
  const takenKeys = new Set(taken.map((e) => `${e.from}>${e.to}`));
  const drawn: { key: string; list: Edge[]; taken: boolean }[] = [];
  for (const [key, list] of ALL_EDGES) {
    const isTaken = takenKeys.has(key);
    const shown = list.filter((e) => !isGlobal(e.event));
    if (shown.length > 0) drawn.push({ key, list: shown, taken: isTaken });
    else if (isTaken)
      drawn.push({ key, list: list.filter((e) => taken.some((t) => t.event === e.event)), taken: true });
  }
  drawn.sort((a, b) => Number(a.taken) - Number(b.taken));
  const path_ = [...visited].map(label).join(', ');
  return (
    <figure class="sm">
      <svg
        data-testid="state-machine"
        viewBox="0 0 870 380"
        role="img"
        aria-labelledby="sm-title sm-desc"
        class="sm-svg"
      >
        <title id="sm-title">The task's state machine</title>
        <desc id="sm-desc">
          Current state: {label(current)}. Visited: {path_ || 'none'}.
        </desc>
        <defs>
          <Arrowhead id="arr" tone="sm-arrow" />
          <Arrowhead id="arr-taken" tone="sm-arrow-taken" />
        </defs>
        {COLUMNS.map(([x, name]) => (
          <text key={name} x={x} y={365} class="sm-col" text-anchor="middle">
            {name}
          </text>
        ))}
        {drawn.map(({ key, list, taken: isTaken }) => {
          const first = list[0]!;
          const { d, mid, long } = path(first.from, first.to);
          const names = list.map((e) => e.event).join(', ');
          const takenNames = list
            .filter((e) => taken.some((t) => t.event === e.event && t.from === e.from))
            .map((e) => e.event)
            .join(', ');
          const [x1, y1] = POS[first.from];
          const [x2, y2] = POS[first.to];
          const roomy = Math.hypot(x2 - x1, y2 - y1) - W > takenNames.length * 6;
          return (
            <g key={key} class={isTaken ? 'sm-edge taken' : long ? 'sm-edge long' : 'sm-edge'}>
              <title>
                {label(first.from)} → {label(first.to)}: {names}
                {isTaken ? ' (taken)' : ''}
              </title>
              <path d={d} marker-end={isTaken ? 'url(#arr-taken)' : 'url(#arr)'} />
              {isTaken && roomy ? (
                <text x={mid[0]} y={mid[1] - 4} text-anchor="middle" class="sm-edge-label">
                  {takenNames}
                </text>
              ) : null}
            </g>
          );
        })}
        {SYNAPSE_STATES.map((s) => {
          const [x, y] = POS[s];
          const cls = s === current ? 'sm-node current' : visited.has(s) ? 'sm-node visited' : 'sm-node';
          return (
            <g
              key={s}
              class={cls}
              data-state={s}
              data-current={s === current ? 'true' : undefined}
              data-visited={visited.has(s) ? 'true' : undefined}
            >
              <title>
                {label(s)}
                {s === current ? ' (current state)' : visited.has(s) ? ' (visited)' : ''}
              </title>
              <rect x={x - W / 2} y={y - H / 2} width={W} height={H} rx={8} />
              <text x={x} y={y + 4} text-anchor="middle">
                {s === current ? `▶ ${label(s)}` : label(s)}
              </text>
            </g>
          );
        })}
      </svg>
      <figcaption class="muted">
        Current state: <strong>{label(current)}</strong>. From any unfinished state:{' '}
        {GLOBAL_EVENTS.map((e) => `${e} → ${label(TRANSITION_RULES[e].to as string)}`).join('; ')} (drawn when
        taken). Bold: visited states and the transitions this task took
        {taken.length
          ? `: ${taken.map((e) => `${label(e.from)} → ${label(e.to)} (${e.event})`).join(', ')}.`
          : '.'}
      </figcaption>
    </figure>
  );
}

/** An arrowhead the edges end with (`marker-end`). */
function Arrowhead({ id, tone }: { id: string; tone: string }) {
  return (
    <marker
      id={id}
      viewBox="0 0 10 10"
      refX="9"
      refY="5"
      markerWidth="9"
      markerHeight="9"
      markerUnits="userSpaceOnUse"
      orient="auto"
    >
      <path d="M0,0L10,5L0,10z" class={tone} />
    </marker>
  );
}
