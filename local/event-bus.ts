/**
 * A local stand-in for an EventBridge bus: an HTTP endpoint on 127.0.0.1 that
 * speaks the `PutEvents` call of EventBridge's JSON protocol, so the relay's
 * real EventBridge adapter publishes to it unchanged (AWS_ENDPOINT_URL_EVENTBRIDGE).
 * Events are kept in memory (the latest ones), handed to subscribers in this
 * process, and logged when a logger is given. Rules and targets are not emulated.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface BusEvent {
  id: string;
  eventBusName: string;
  source: string;
  detailType: string;
  time: string;
  detail: Record<string, unknown>;
}

export type BusSubscriber = (event: BusEvent) => void;

export interface LocalEventBus {
  endpoint: string;
  /** The latest events, oldest first. */
  events(): BusEvent[];
  /** Calls `subscriber` with every event published from now on; returns the unsubscribe function. */
  subscribe(subscriber: BusSubscriber): () => void;
  stop(): Promise<void>;
}

export interface LocalEventBusOptions {
  host?: string;
  /** How many events to keep (default 10,000). */
  keep?: number;
  /** Called with each event, e.g. to print it. */
  log?: (event: BusEvent) => void;
}

interface PutEventsEntry {
  Source?: string;
  DetailType?: string;
  Detail?: string;
  EventBusName?: string;
  Time?: number | string;
}

const readBody = (req: IncomingMessage): Promise<string> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });

const reply = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' });
  res.end(JSON.stringify(body));
};

const timeOf = (t: PutEventsEntry['Time']): string =>
  t === undefined ? new Date().toISOString() : new Date(typeof t === 'number' ? t * 1000 : t).toISOString();

export const startLocalEventBus = async (options: LocalEventBusOptions = {}): Promise<LocalEventBus> => {
  const keep = options.keep ?? 10_000;
  const stored: BusEvent[] = [];
  const subscribers = new Set<BusSubscriber>();

  const server = createServer(async (req, res) => {
    try {
      const target = String(req.headers['x-amz-target'] ?? '');
      const body = await readBody(req);
      if (target !== 'AWSEvents.PutEvents') {
        return reply(res, 400, { __type: 'UnknownOperationException', message: `${target} is not emulated` });
      }
      const entries = ((JSON.parse(body) as { Entries?: PutEventsEntry[] }).Entries ??
        []) as PutEventsEntry[];
      if (entries.length === 0 || entries.length > 10) {
        return reply(res, 400, { __type: 'ValidationException', message: 'PutEvents takes 1 to 10 entries' });
      }
      const results = entries.map((entry) => {
        let detail: Record<string, unknown>;
        try {
          detail = JSON.parse(entry.Detail ?? '{}') as Record<string, unknown>;
        } catch {
          return { ErrorCode: 'MalformedDetail', ErrorMessage: 'Detail is not valid JSON' };
        }
        if (!entry.Source || !entry.DetailType) {
          return { ErrorCode: 'InvalidArgument', ErrorMessage: 'Source and DetailType are required' };
        }
        const event: BusEvent = {
          id: randomUUID(),
          eventBusName: entry.EventBusName ?? 'default',
          source: entry.Source,
          detailType: entry.DetailType,
          time: timeOf(entry.Time),
          detail,
        };
        stored.push(event);
        if (stored.length > keep) stored.splice(0, stored.length - keep);
        options.log?.(event);
        for (const s of subscribers) s(event);
        return { EventId: event.id };
      });
      reply(res, 200, { FailedEntryCount: results.filter((r) => 'ErrorCode' in r).length, Entries: results });
    } catch (e) {
      reply(res, 400, { __type: 'SerializationException', message: String(e) });
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, options.host ?? '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://${options.host ?? '127.0.0.1'}:${port}`,
    events: () => [...stored],
    subscribe: (subscriber) => {
      subscribers.add(subscriber);
      return () => void subscribers.delete(subscriber);
    },
    stop: async () => {
      subscribers.clear();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
};
