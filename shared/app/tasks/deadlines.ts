/**
 * How long a new task may live before the expiry sweep fails it: the deadline
 * rules, as data (docs/heartbeats.md#deadlines). In order, the first that
 * says something wins:
 * 1. the request: A2A carries no deadline, so a requester puts one in the
 *    message's metadata, `synapse.deadlineSeconds` (an integer, 1 to
 *    `maxRequestSeconds`; anything else is refused naming the field);
 * 2. the skill the message asks for (`AgentSkill.deadlineSeconds`): named by
 *    the message's metadata `synapse.skill`, or else by the agent's
 *    `skillOf(message)`;
 * 3. the agent (`AgentDescription.deadlineSeconds`);
 * 4. the caller's own default (the hub's TASK_TIMEOUT_SECONDS).
 */
import { type AgentHandler, textOf } from '../../agent/api.ts';
import { ValidationError } from '../../domain/errors.ts';
import type { Message } from '../../domain/task.ts';

export const REQUEST_DEADLINE_KEY = 'synapse.deadlineSeconds';
export const REQUEST_SKILL_KEY = 'synapse.skill';
/** The longest deadline a requester may ask for, unless configured (TASK_MAX_DEADLINE_SECONDS): a day. */
export const DEFAULT_MAX_REQUEST_DEADLINE_SECONDS = 86_400;

export interface DeadlineRules {
  /** The longest deadline a requester may ask for. */
  maxRequestSeconds: number;
  /** The agent's default. */
  agentSeconds?: number;
  /** By skill id. */
  skillSeconds?: Readonly<Record<string, number>>;
  /** Which skill a new message asks for, when its metadata does not say. */
  skillOf?: (message: Message) => string | undefined;
}

const isPositiveInteger = (n: unknown): n is number => typeof n === 'number' && Number.isInteger(n) && n > 0;

const checked = (seconds: number | undefined, what: string): number | undefined => {
  if (seconds === undefined) return undefined;
  if (!isPositiveInteger(seconds)) throw new Error(`${what} must be a positive integer number of seconds`);
  return seconds;
};

/** The rules an agent declares (a malformed declaration is a configuration error: it throws). */
export const deadlineRulesOf = (
  agent: Pick<AgentHandler, 'describe' | 'skillOf'>,
  maxRequestSeconds = DEFAULT_MAX_REQUEST_DEADLINE_SECONDS,
): DeadlineRules => {
  const description = agent.describe();
  const skillSeconds: Record<string, number> = {};
  for (const skill of [...description.skills, ...(description.extendedCard?.skills ?? [])]) {
    const seconds = checked(skill.deadlineSeconds, `skill ${skill.id}: deadlineSeconds`);
    if (seconds !== undefined) skillSeconds[skill.id] = seconds;
  }
  const agentSeconds = checked(description.deadlineSeconds, 'the agent description: deadlineSeconds');
  const skillOf = agent.skillOf?.bind(agent);
  return {
    maxRequestSeconds,
    ...(agentSeconds !== undefined ? { agentSeconds } : {}),
    ...(Object.keys(skillSeconds).length ? { skillSeconds } : {}),
    ...(skillOf
      ? {
          skillOf: (message: Message) => {
            try {
              return skillOf({ contextId: message.contextId ?? '', request: message, text: textOf(message) });
            } catch {
              // a skillOf that throws names no skill: the agent's default applies
              return undefined;
            }
          },
        }
      : {}),
  };
};

/** Seconds from creation to the deadline of a task created from `message`, or undefined for the caller's default. */
export const deadlineSecondsFor = (
  rules: DeadlineRules,
  message: Message | undefined,
): number | undefined => {
  const metadata = message?.metadata;
  const requested = metadata?.[REQUEST_DEADLINE_KEY];
  if (requested !== undefined) {
    if (!isPositiveInteger(requested) || requested > rules.maxRequestSeconds) {
      throw new ValidationError(
        `message.metadata["${REQUEST_DEADLINE_KEY}"] must be an integer number of seconds from 1 to ${rules.maxRequestSeconds}`,
        `message.metadata.${REQUEST_DEADLINE_KEY}`,
      );
    }
    return requested;
  }
  if (rules.skillSeconds && message) {
    const named = metadata?.[REQUEST_SKILL_KEY];
    const skill = typeof named === 'string' ? named : rules.skillOf?.(message);
    const seconds = skill !== undefined ? rules.skillSeconds[skill] : undefined;
    if (seconds !== undefined) return seconds;
  }
  return rules.agentSeconds;
};
