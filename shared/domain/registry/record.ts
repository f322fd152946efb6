/**
 * The agent registry's model (docs/registry.md): a record is one agent a tenant published, its versions
 * are the cards it published (immutable once written), and its state is the review of its latest
 * version. An edited record keeps its approved version live until the new one is approved.
 */
export type RecordState = 'DRAFT' | 'PENDING_APPROVAL' | 'APPROVED' | 'REJECTED' | 'DEPRECATED';
export const RECORD_STATES: readonly RecordState[] = [
  'DRAFT',
  'PENDING_APPROVAL',
  'APPROVED',
  'REJECTED',
  'DEPRECATED',
];

/** `public`: anyone, and the ai-catalog; `tenant`: the record's tenant; `private`: its publisher alone. */
export type Visibility = 'public' | 'tenant' | 'private';
export const VISIBILITIES: readonly Visibility[] = ['public', 'tenant', 'private'];

export type HealthStatus = 'unknown' | 'healthy' | 'degraded' | 'unreachable';

/**
 * The card a registry keeps: always the A2A v1.0 shape (a2a.proto `AgentCard`), whatever shape was
 * published (the original is kept beside it). Open where the protocol is open (bindings, modes).
 */
export interface RegistryCard {
  name: string;
  description: string;
  supportedInterfaces: { url: string; protocolBinding: string; protocolVersion: string; tenant?: string }[];
  provider?: { organization: string; url: string };
  version: string;
  documentationUrl?: string;
  capabilities: {
    streaming?: boolean;
    pushNotifications?: boolean;
    extendedAgentCard?: boolean;
    extensions?: {
      uri: string;
      description?: string;
      required?: boolean;
      params?: Record<string, unknown>;
    }[];
  };
  securitySchemes?: Record<string, unknown>;
  securityRequirements?: unknown[];
  defaultInputModes: string[];
  defaultOutputModes: string[];
  skills: {
    id: string;
    name: string;
    description: string;
    tags: string[];
    examples?: string[];
    inputModes?: string[];
    outputModes?: string[];
    securityRequirements?: unknown[];
  }[];
  signatures?: { protected: string; signature: string; header?: Record<string, unknown> }[];
  iconUrl?: string;
}

/** Whether a card's signature was verified, and by which trusted key. */
export type CardVerification =
  | { status: 'verified'; kid: string; trustedBy: string }
  | { status: 'unsigned' }
  | { status: 'unverified'; reason: string };

/**
 * What search, browse, explore and the ai-catalog read: a record with a live (approved) version, as the
 * catalog index holds it.
 */
export interface CatalogEntry {
  /** The record id. */
  id: string;
  /** `urn:air:<publisher>:<namespace>:<agent-name>` (ARD's catalog entry identifier). */
  identifier: string;
  tenant: string;
  owner: string;
  visibility: Visibility;
  /** APPROVED, or DEPRECATED (then it leaves the index). A record under review keeps its live entry APPROVED. */
  state: 'APPROVED' | 'DEPRECATED';
  /** The live version's number and card. */
  version: number;
  card: RegistryCard;
  /** Where the card was published from, when it was fetched by URL. */
  cardUrl?: string;
  verification: CardVerification;
  health: HealthStatus;
  /** ISO time of the entry's last change. */
  updatedAt: string;
}

/** The catalog entry of a record's live version, as of `updatedAt`. */
export const liveEntryOf = (
  record: {
    id: string;
    identifier: string;
    tenant: string;
    owner: string;
    visibility: Visibility;
    cardUrl?: string;
    health: HealthStatus;
  },
  version: { version: number; card: RegistryCard; verification: CardVerification },
  updatedAt: string,
): CatalogEntry => ({
  id: record.id,
  identifier: record.identifier,
  tenant: record.tenant,
  owner: record.owner,
  visibility: record.visibility,
  state: 'APPROVED',
  version: version.version,
  card: version.card,
  ...(record.cardUrl ? { cardUrl: record.cardUrl } : {}),
  verification: version.verification,
  health: record.health,
  updatedAt,
});
