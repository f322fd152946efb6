/** A task state as a badge: the state's name in text, its colour as a second cue. */
import { A2A_STATE_OF, type SynapseState, stateLabel, stateTone } from './a2a.ts';

export function StateBadge({ a2a, internal, testid }: { a2a: string; internal?: string; testid?: string }) {
  const label = stateLabel(a2a);
  const detail = internal && internal !== label.replace(/ /g, '_') ? internal.replace(/_/g, ' ') : undefined;
  return (
    <span class={`badge ${stateTone(a2a)}`} data-testid={testid} data-state={internal ?? a2a} data-a2a={a2a}>
      {label}
      {detail ? <span class="badge-detail"> · {detail}</span> : null}
    </span>
  );
}

export const a2aOf = (s: SynapseState): string => A2A_STATE_OF[s] ?? 'TASK_STATE_UNSPECIFIED';
