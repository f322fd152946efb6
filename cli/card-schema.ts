/**
 * `card get --validate` (a2a-cli SPEC §8.1): the card checked against A2A v1.0's AgentCard with the zod
 * schema the registry accepts cards with (shared/protocol/a2a/card-normalise.ts), so the CLI and the hub
 * agree on what a valid card is. A v0.3 card (no `supportedInterfaces`) is not a v1.0 card. Each problem
 * names its field (`card.skills[0].tags: …`). Loaded only by `--validate`: zod stays out of every other
 * command.
 */
import { normaliseCard } from '../shared/protocol/a2a/card-normalise.ts';

/** The problems of the card document `json` as an A2A v1.0 AgentCard; none: it is one. */
export function cardProblems(json: unknown): string[] {
  const result = normaliseCard(json);
  if (!result.ok) return result.errors;
  if (result.shape !== '1.0')
    return [
      'card.supportedInterfaces: required (this is an A2A v0.3 card: v1.0 lists its endpoints in supportedInterfaces)',
    ];
  return [];
}
