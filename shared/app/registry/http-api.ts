/**
 * The registry's HTTP API, transport-neutral (docs/registry.md#the-api). Discovery speaks ARD
 * (spec/schemas/ard.openapi.yaml): `POST /registry/search`, `POST /registry/explore`,
 * `GET /registry/agents` (browse), `GET /registry/agents/{id}`, and `GET /.well-known/ai-catalog.json`
 * (public). Management is the hub's own design:
 *
 * | request | what |
 * |---|---|
 * | `POST /registry/records` `{cardUrl \| card, visibility?, draft?}` | a new record with its first version (201) |
 * | `GET /registry/records?pageSize&pageToken` | the records the caller manages |
 * | `GET /registry/records/{id}` | a record, its live and latest versions' cards, its health |
 * | `GET /registry/records/{id}/versions/{n}` | one version as published (the original kept) |
 * | `POST /registry/records/{id}/versions` `{cardUrl \| card, draft?}` | a new version, reviewed again |
 * | `POST /registry/records/{id}:submit` | a draft submitted for review |
 * | `POST /registry/records/{id}:approve` / `:reject` `{version?, note?}` | the review (the `approve` right) |
 * | `POST /registry/records/{id}:deprecate` `{note?}` | retired for good |
 *
 * Errors are ARD's `{errorCode, message}` (with `details`: every problem of a refused card or filter).
 */
import { AI_CATALOG_PATH } from '../../contracts/routes.ts';
import { AuthError } from '../../domain/errors.ts';
import { authorize, type Principal } from '../../domain/principal.ts';
import { VISIBILITIES } from '../../domain/registry/record.ts';
import type { StoredRecord, StoredVersion } from '../../ports/registry-store.ts';
import * as z from '../../validation/zod.ts';
import { RegistryError, STATUS_OF } from './errors.ts';
import type { RegistryService } from './registry-service.ts';

export interface RegistryRequest {
  method: string;
  /** Below `/registry` (`/search`, `/records/{id}:approve`, …), or `AI_CATALOG` for the public catalog. */
  path: string;
  query: Readonly<Record<string, string | undefined>>;
  body: string | undefined;
  /** Who is calling, or why they may not (the public catalog asks no one). */
  principal: Principal | AuthError;
}

export interface RegistryAnswer {
  statusCode: number;
  body: unknown;
  headers?: Record<string, string>;
  meta: { recordId?: string; errorCode?: string };
}

/** Discovery over the catalog this container holds (./discovery.ts). */
export interface Discovery {
  search(principal: Principal, body: unknown): Promise<unknown>;
  explore(principal: Principal, body: unknown): Promise<unknown>;
  browse(principal: Principal, query: Readonly<Record<string, string | undefined>>): Promise<unknown>;
  entry(principal: Principal, id: string): Promise<unknown>;
  /** The public AI Catalog document. */
  aiCatalog(): Promise<unknown>;
}

export const AI_CATALOG = AI_CATALOG_PATH;

/** Bodies: a card (≤ 64 KiB, shared/protocol/a2a/card-normalise.ts) and its wrapper; searches are small. */
export const MAX_PUBLISH_BODY_BYTES = 96 * 1024;
export const MAX_QUERY_BODY_BYTES = 16 * 1024;

const publishSchema = z.strictObject({
  cardUrl: z.optional(z.string().check(z.minLength(1), z.maxLength(2048))),
  card: z.optional(z.record(z.string(), z.unknown())),
  visibility: z.optional(z.enum(VISIBILITIES as [string, ...string[]])),
  draft: z.optional(z.boolean()),
});

const reviewSchema = z.strictObject({
  version: z.optional(z.int().check(z.gte(1))),
  note: z.optional(z.string().check(z.maxLength(1024))),
});

const deprecateSchema = z.strictObject({ note: z.optional(z.string().check(z.maxLength(1024))) });

const RECORD_ID = /^[A-Za-z0-9-]{1,64}$/;
const PAGE_SIZE_MAX = 100;

const error = (e: RegistryError): RegistryAnswer => ({
  statusCode: STATUS_OF[e.errorCode],
  body: e.toJSON(),
  meta: { errorCode: e.errorCode },
});

/** A JSON body checked against its schema (every problem named), or the error it earns. */
export const bodyOf = <T>(schema: z.ZodMiniType<T>, body: string | undefined, maxBytes: number): T => {
  if (body && Buffer.byteLength(body, 'utf8') > maxBytes)
    throw new RegistryError('PAYLOAD_TOO_LARGE', `The body is larger than ${maxBytes} bytes`);
  let raw: unknown;
  try {
    raw = body ? JSON.parse(body) : {};
  } catch {
    throw new RegistryError('INVALID_ARGUMENT', 'The body is not JSON');
  }
  return checked(schema, raw);
};

/** A parsed value checked against its schema, or INVALID_ARGUMENT naming every problem. */
export const checked = <T>(schema: z.ZodMiniType<T>, value: unknown): T => {
  const parsed = schema.safeParse(value);
  if (!parsed.success)
    throw new RegistryError(
      'INVALID_ARGUMENT',
      'The request is not valid',
      parsed.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`),
    );
  return parsed.data;
};

/** A record as the API shows it. */
export const recordView = (record: StoredRecord) => ({
  id: record.id,
  identifier: record.identifier,
  name: record.name,
  owner: record.owner,
  visibility: record.visibility,
  state: record.state,
  latestVersion: record.latestVersion,
  ...(record.liveVersion !== undefined ? { liveVersion: record.liveVersion } : {}),
  ...(record.cardUrl ? { cardUrl: record.cardUrl } : {}),
  health: record.health,
  reviews: record.reviews,
  createdAt: record.createdAt,
  updatedAt: record.updatedAt,
});

const versionView = (version: StoredVersion) => ({
  version: version.version,
  shape: version.shape,
  card: version.card,
  ...(version.original !== undefined ? { original: version.original } : {}),
  digest: version.digest,
  source: version.source,
  verification: version.verification,
  publishedAt: version.publishedAt,
  publishedBy: version.publishedBy,
});

const ok = (statusCode: number, body: unknown, recordId?: string): RegistryAnswer => ({
  statusCode,
  body,
  meta: recordId ? { recordId } : {},
});

export class RegistryHttpApi {
  constructor(
    private readonly service: RegistryService,
    private readonly discovery: Discovery,
  ) {}

  async handle(request: RegistryRequest): Promise<RegistryAnswer> {
    try {
      if (request.path === AI_CATALOG) {
        if (request.method !== 'GET') return this.notAllowed('GET');
        return {
          ...ok(200, await this.discovery.aiCatalog()),
          // the catalog changes when a record is approved: caches keep it briefly
          headers: { 'Cache-Control': 'public, max-age=60' },
        };
      }
      const { principal } = request;
      if (principal instanceof AuthError) throw principal;
      return await this.route(request, principal);
    } catch (e) {
      if (e instanceof RegistryError) return error(e);
      if (e instanceof AuthError) {
        const answer = error(
          new RegistryError(
            e.code === 'unauthenticated' ? 'UNAUTHENTICATED' : 'PERMISSION_DENIED',
            e.message,
          ),
        );
        return e.code === 'unauthenticated'
          ? { ...answer, headers: { 'WWW-Authenticate': 'Bearer realm="synapse"' } }
          : answer;
      }
      throw e;
    }
  }

  private notAllowed(allowed: string): RegistryAnswer {
    return {
      ...error(new RegistryError('INVALID_ARGUMENT', `Method not allowed here (use ${allowed})`)),
      statusCode: 405,
      headers: { Allow: allowed },
    };
  }

  private async route(request: RegistryRequest, principal: Principal): Promise<RegistryAnswer> {
    const { method, path } = request;
    const [, collection, rawId, ...rest] = path.split('/');
    if (collection === 'search' && !rawId) {
      if (method !== 'POST') return this.notAllowed('POST');
      authorize(principal, 'read');
      return ok(200, await this.discovery.search(principal, this.queryBody(request.body)));
    }
    if (collection === 'explore' && !rawId) {
      if (method !== 'POST') return this.notAllowed('POST');
      authorize(principal, 'read');
      return ok(200, await this.discovery.explore(principal, this.queryBody(request.body)));
    }
    if (collection === 'agents' && rest.length === 0) {
      if (method !== 'GET') return this.notAllowed('GET');
      authorize(principal, 'read');
      if (rawId) return ok(200, await this.discovery.entry(principal, this.idOf(rawId)));
      return ok(200, await this.discovery.browse(principal, request.query));
    }
    if (collection === 'records') return this.records(request, principal, rawId, rest);
    throw new RegistryError('NOT_FOUND', `No route ${path.slice(0, 128)}`);
  }

  private queryBody(body: string | undefined): unknown {
    return bodyOf(z.unknown(), body, MAX_QUERY_BODY_BYTES);
  }

  private idOf(raw: string): string {
    let id: string;
    try {
      id = decodeURIComponent(raw);
    } catch {
      throw new RegistryError('NOT_FOUND', 'No such record');
    }
    if (!RECORD_ID.test(id)) throw new RegistryError('NOT_FOUND', 'No such record');
    return id;
  }

  private pageOf(query: RegistryRequest['query']): { pageSize: number; pageToken?: string } {
    const size = query.pageSize === undefined ? 20 : Number(query.pageSize);
    if (!Number.isInteger(size) || size < 1 || size > PAGE_SIZE_MAX)
      throw new RegistryError('INVALID_ARGUMENT', `pageSize: a whole number from 1 to ${PAGE_SIZE_MAX}`);
    if (query.pageToken !== undefined && !/^[A-Za-z0-9_-]{1,2048}$/.test(query.pageToken))
      throw new RegistryError('INVALID_ARGUMENT', 'pageToken: not a token this registry gave');
    return { pageSize: size, ...(query.pageToken ? { pageToken: query.pageToken } : {}) };
  }

  private async records(
    request: RegistryRequest,
    principal: Principal,
    rawId: string | undefined,
    rest: string[],
  ): Promise<RegistryAnswer> {
    const { method, body } = request;
    if (!rawId) {
      if (method === 'POST') {
        const input = bodyOf(publishSchema, body, MAX_PUBLISH_BODY_BYTES);
        const record = await this.service.publish(principal, {
          ...(input.cardUrl !== undefined ? { cardUrl: input.cardUrl } : {}),
          ...(input.card !== undefined ? { card: input.card } : {}),
          ...(input.visibility !== undefined
            ? { visibility: input.visibility as StoredRecord['visibility'] }
            : {}),
          ...(input.draft !== undefined ? { draft: input.draft } : {}),
        });
        return ok(201, recordView(record), record.id);
      }
      if (method !== 'GET') return this.notAllowed('GET, POST');
      const page = await this.service.list(principal, this.pageOf(request.query));
      return ok(200, {
        records: page.records.map(recordView),
        ...(page.pageToken ? { pageToken: page.pageToken } : {}),
      });
    }
    const colon = rawId.indexOf(':');
    const id = this.idOf(colon >= 0 ? rawId.slice(0, colon) : rawId);
    if (colon >= 0) {
      if (rest.length) throw new RegistryError('NOT_FOUND', 'No such route');
      if (method !== 'POST') return this.notAllowed('POST');
      const action = rawId.slice(colon + 1);
      switch (action) {
        case 'submit':
          bodyOf(z.strictObject({}), body, MAX_QUERY_BODY_BYTES);
          return ok(200, recordView(await this.service.submit(principal, id)), id);
        case 'approve':
        case 'reject': {
          const input = bodyOf(reviewSchema, body, MAX_QUERY_BODY_BYTES);
          const review = {
            ...(input.version !== undefined ? { version: input.version } : {}),
            ...(input.note !== undefined ? { note: input.note } : {}),
          };
          return ok(200, recordView(await this.service.review(principal, id, action, review)), id);
        }
        case 'deprecate': {
          const input = bodyOf(deprecateSchema, body, MAX_QUERY_BODY_BYTES);
          const note = input.note !== undefined ? { note: input.note } : {};
          return ok(200, recordView(await this.service.deprecate(principal, id, note)), id);
        }
        default:
          throw new RegistryError(
            'NOT_FOUND',
            `No action ${action.slice(0, 32)}: submit, approve, reject, deprecate`,
          );
      }
    }
    if (rest.length === 0) {
      if (method !== 'GET') return this.notAllowed('GET');
      return ok(200, await this.shown(principal, await this.service.get(principal, id)), id);
    }
    if (rest[0] === 'versions' && rest.length === 1) {
      if (method !== 'POST') return this.notAllowed('POST');
      const input = bodyOf(publishSchema, body, MAX_PUBLISH_BODY_BYTES);
      const record = await this.service.publishVersion(principal, id, {
        ...(input.cardUrl !== undefined ? { cardUrl: input.cardUrl } : {}),
        ...(input.card !== undefined ? { card: input.card } : {}),
        ...(input.visibility !== undefined
          ? { visibility: input.visibility as StoredRecord['visibility'] }
          : {}),
        ...(input.draft !== undefined ? { draft: input.draft } : {}),
      });
      return ok(201, recordView(record), id);
    }
    if (rest[0] === 'versions' && rest.length === 2) {
      if (method !== 'GET') return this.notAllowed('GET');
      const n = Number(rest[1]);
      if (!Number.isInteger(n) || n < 1) throw new RegistryError('NOT_FOUND', 'No such version');
      return ok(200, versionView(await this.service.getVersion(principal, id, n)), id);
    }
    throw new RegistryError('NOT_FOUND', 'No such route');
  }

  /** A record with its live and latest versions' cards and its last probe's report. */
  private async shown(principal: Principal, record: StoredRecord) {
    const [latest, live, health] = await Promise.all([
      this.service.getVersion(principal, record.id, record.latestVersion),
      record.liveVersion !== undefined && record.liveVersion !== record.latestVersion
        ? this.service.getVersion(principal, record.id, record.liveVersion)
        : undefined,
      this.service.healthReport(principal, record.id),
    ]);
    return {
      ...recordView(record),
      latest: versionView(latest),
      ...(live ? { live: versionView(live) } : {}),
      ...(health !== undefined ? { healthReport: health } : {}),
    };
  }
}
