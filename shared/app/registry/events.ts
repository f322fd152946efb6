/**
 * The registry's lifecycle events (docs/events.md#registry-events), derived from the table's stream like
 * the tasks' (the stream is the outbox): a record submitted for review, approved, rejected or deprecated,
 * and a live agent's health changing. Each id is unique per committed change, so a record relayed twice
 * is de-duplicated by its consumers.
 */
import type { LifecycleEvent } from '../../ports/lifecycle-publisher.ts';
import type { RegistryChange, StoredRecord } from '../../ports/registry-store.ts';

/** The `source` of the registry's events (the tasks' is `synapse.tasks`). */
export const REGISTRY_EVENT_SOURCE = 'synapse.registry';

export const RegistryDetailType = {
  Submitted: 'Registry Record Submitted',
  Approved: 'Registry Record Approved',
  Rejected: 'Registry Record Rejected',
  Deprecated: 'Registry Record Deprecated',
  HealthChanged: 'Registry Agent Health Changed',
} as const;

const recordDetail = (r: StoredRecord) => ({
  tenant: r.tenant,
  recordId: r.id,
  identifier: r.identifier,
  name: r.name,
  visibility: r.visibility,
  state: r.state,
  version: r.latestVersion,
  ...(r.liveVersion !== undefined ? { liveVersion: r.liveVersion } : {}),
});

/** The events a change means (none for most: a draft, a health write, a record unchanged in state). */
export const registryEventsOf = (change: RegistryChange): LifecycleEvent[] => {
  if (change.kind === 'entry') {
    const { before, after } = change;
    if (!before || before.health === after.health || after.state !== 'APPROVED') return [];
    return [
      {
        source: REGISTRY_EVENT_SOURCE,
        detailType: RegistryDetailType.HealthChanged,
        id: `${after.id}:health:${after.updatedAt}`,
        time: after.updatedAt,
        detail: {
          tenant: after.tenant,
          recordId: after.id,
          identifier: after.identifier,
          health: after.health,
          previousHealth: before.health,
        },
      },
    ];
  }
  const { before, after } = change;
  const moved = before?.state !== after.state || before?.latestVersion !== after.latestVersion;
  if (!moved) return [];
  const detailType =
    after.state === 'PENDING_APPROVAL'
      ? RegistryDetailType.Submitted
      : after.state === 'APPROVED'
        ? RegistryDetailType.Approved
        : after.state === 'REJECTED'
          ? RegistryDetailType.Rejected
          : after.state === 'DEPRECATED'
            ? RegistryDetailType.Deprecated
            : undefined;
  if (!detailType) return [];
  return [
    {
      source: REGISTRY_EVENT_SOURCE,
      detailType,
      id: `${after.id}:${after.revision}`,
      time: after.updatedAt,
      detail: recordDetail(after),
    },
  ];
};
