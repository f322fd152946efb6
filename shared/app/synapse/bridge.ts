/**
 * The bridge from A2A to Synapse (docs/synapse-protocol.md#the-bridge-to-a2a): a skill can be carried
 * out by a remote Synapse executor instead of this hub's agent, configured per skill
 * (SYNAPSE_REMOTE_SKILLS: `{"<skill id>": "<peer id>"}` or `{"<skill id>": {"peer": "…", "type": "…"}}`,
 * `type` the peer's task type, default the skill id).
 *
 * A new A2A message for such a skill (named by its metadata `synapse.skill`, or the agent's `skillOf`)
 * makes a requester task (./requester.ts) instead of a local one. It is one task, readable and
 * streamable over A2A like any: its Synapse state is the requester's view, projected onto A2A as
 * usual (info needed and need human are input-required, with the peer's question or options as the
 * status message), and the client's next message answers either (it is sent to the peer as
 * p2p:task_info_provided or p2p:human_decision). The peer's progress becomes status updates, its result
 * artifacts, and CancelTask sends p2p:task_cancel. The Synapse task id is the A2A task's id.
 *
 * Which peer a skill goes to: ./remote-skills.ts (this static map first, then the agent registry).
 */
import { textOf } from '../../agent/api.ts';
import type { Message } from '../../domain/task.ts';

export interface RemoteSkill {
  peer: string;
  /** The peer's task type. */
  type: string;
}

export type RemoteSkills = Readonly<Record<string, RemoteSkill>>;

const ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** SYNAPSE_REMOTE_SKILLS, checked (a malformed value is a configuration error: it throws, naming the place). */
export const parseRemoteSkills = (
  text: string | undefined,
  source = 'SYNAPSE_REMOTE_SKILLS',
): RemoteSkills => {
  if (text === undefined || text.trim() === '') return {};
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new Error(
      `${source} must be JSON: {"<skill id>": "<peer id>" | {"peer": "<peer id>", "type"?: "<task type>"}}`,
    );
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw new Error(`${source} must be a JSON object`);
  const out: Record<string, RemoteSkill> = {};
  for (const [skill, value] of Object.entries(raw)) {
    const spec = typeof value === 'string' ? { peer: value } : (value as { peer?: unknown; type?: unknown });
    const type = spec?.type ?? skill;
    if (
      !ID.test(skill) ||
      typeof spec?.peer !== 'string' ||
      !spec.peer ||
      typeof type !== 'string' ||
      !ID.test(type)
    )
      throw new Error(`${source}["${skill.slice(0, 64)}"] must name a peer (and optionally a task type)`);
    out[skill] = { peer: spec.peer, type };
  }
  return out;
};

/** Which skill a new message asks for: its metadata's `synapse.skill`, else the agent's `skillOf`. */
export type SkillOf = (message: Message) => string | undefined;

/** An agent's skillOf, as the bridge asks it (one that throws names no skill). */
export const agentSkillOf =
  (skillOf: ((m: { contextId: string; request: Message; text: string }) => string | undefined) | undefined) =>
  (message: Message): string | undefined => {
    if (!skillOf) return undefined;
    try {
      return skillOf({ contextId: message.contextId ?? '', request: message, text: textOf(message) });
    } catch {
      return undefined;
    }
  };
