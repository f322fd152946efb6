/**
 * The registry's health probing (docs/registry.md#health): on each tick of the schedule, the live agents due
 * in it are queued, each delayed to its own offset in the tick (shared/domain/registry/probe-schedule.ts);
 * each probe fetches the agent's card and calls every interface (./probe.ts), keeps the report, and sets
 * the agent's health — which moves its catalog entry only when it changes.
 */
import type { ProbeReport } from '../../domain/registry/health.ts';
import { dueThisTick, type ProbeSchedule, tickIndexOf } from '../../domain/registry/probe-schedule.ts';
import { type CatalogEntry, liveEntryOf } from '../../domain/registry/record.ts';
import type { Clock } from '../../ports/clock.ts';
import type { HttpClient } from '../../ports/http-client.ts';
import type { ProbeQueue, ProbeRequest } from '../../ports/probe-queue.ts';
import type { RegistryStore } from '../../ports/registry-store.ts';
import type { Catalog, CatalogEntries } from './catalog.ts';
import { probeAgent } from './probe.ts';

export class RegistryProber {
  constructor(
    private readonly store: RegistryStore,
    private readonly catalog: Pick<Catalog<CatalogEntries>, 'current'>,
    private readonly queue: ProbeQueue,
    private readonly http: HttpClient,
    private readonly schedule: ProbeSchedule,
    private readonly clock: Clock,
    private readonly timeoutMs: number,
  ) {}

  /** Queues the probes due in the tick at `time` (the schedule's event time); resolves how many. */
  async tick(time: Date): Promise<number> {
    const index = await this.catalog.current();
    const byId = new Map<string, CatalogEntry>();
    for (const entry of index.entries()) byId.set(entry.id, entry);
    const due = dueThisTick(byId.keys(), {
      ...this.schedule,
      tickIndex: tickIndexOf(time, this.schedule.tickSeconds),
    });
    await this.queue.schedule(
      due.map(({ id, delaySeconds }) => ({ request: { tenant: byId.get(id)!.tenant, id }, delaySeconds })),
    );
    return due.length;
  }

  /**
   * Probes one agent and keeps the report; undefined when it has no live version any more (deprecated,
   * or gone), which a probe queued before that finds.
   */
  async probe({ tenant, id }: ProbeRequest): Promise<ProbeReport | undefined> {
    const record = await this.store.getRecord(tenant, id);
    if (!record || record.state === 'DEPRECATED' || record.liveVersion === undefined) return undefined;
    const [version, last] = await Promise.all([
      this.store.getVersion(tenant, id, record.liveVersion),
      this.store.getHealthReport(tenant, id) as Promise<ProbeReport | undefined>,
    ]);
    if (!version) return undefined;
    // a conditional fetch only when the card last fetched was the live one: a 304 then means it still is
    const lastCard = last?.card;
    const cardEtag =
      lastCard?.etag && (lastCard.status === 'same' || lastCard.status === 'unchanged')
        ? lastCard.etag
        : undefined;
    const report = await probeAgent({
      entry: liveEntryOf(record, version, record.updatedAt),

      ...(cardEtag ? { cardEtag } : {}),
      liveCardDigest: version.digest,
      http: this.http,
      now: () => this.clock.now(),
      timeoutMs: this.timeoutMs,
    });
    await this.store.putHealth(
      tenant,
      id,
      report.status,
      report,
      this.clock.now().toISOString(),
      record.health,
    );
    return report;
  }
}
