/**
 * The a2a-cli requirement registry (github.com/a2aproject/a2a-cli, specification/COMPLIANCE.md, spec v0.2
 * revised 2026-08-17): every identifier, its tier, the spec sections that govern it, and its short wording
 * from compliance-report.template.yaml. The compliance report (docs/cli-compliance.md) is this registry
 * with each identifier's outcome in a test run: a test proves an identifier by carrying it in its name,
 * `[A2ACLI_SEND_005]`.
 */
export const SPEC_VERSION = '0.2';
export const SPEC_REVISION = '2026-08-17';

export interface Requirement {
  id: string;
  tier: 1 | 2 | 3;
  spec: string;
  requirement: string;
  /** Why the requirement does not apply to this tool (the registry's conditional rows), when it does not. */
  na?: string;
  /** Why this tool does not claim it (Tier 3 items outside the scope), when it does not. */
  notClaimed?: string;
}

const r = (
  id: string,
  tier: 1 | 2 | 3,
  spec: string,
  requirement: string,
  extra: Partial<Requirement> = {},
) => ({
  id: `A2ACLI_${id}`,
  tier,
  spec,
  requirement,
  ...extra,
});

export const REQUIREMENTS: readonly Requirement[] = [
  r(
    'CARD_GET_001',
    1,
    '§8.1, §11',
    'card get — resolve/parse an Agent Card from host, URL, or file:// path; select a transport',
  ),
  r('SEND_001', 1, '§8.2', 'Send a message to start an interaction'),
  r('SEND_002', 1, '§8.2, §4.5', 'Blocking by default; --async returns identifiers immediately'),
  r(
    'SEND_003',
    1,
    '§8.2, §7.2',
    '--stream consumes SSE when supported, never hangs when unsupported; a Message-only response exits cleanly',
  ),
  r('SEND_004', 1, '§8.2', 'Renders produced artifacts; never silently discards a part'),
  r(
    'SEND_005',
    1,
    '§8.2',
    "Caller can set a part's media type with --media-type, bound to the part flag it follows; inferred only when none given",
  ),
  r('SEND_006', 1, '§8.2', '--text / --file / --data repeatable and order-preserving; --data - reads stdin'),
  r(
    'TASK_GET_001',
    1,
    '§8.3',
    'task get — state, artifacts, history by id; renders artifacts, never silently strips them',
  ),
  r('TASK_CANCEL_001', 1, '§8.4', 'task cancel — idempotent; reports resulting state'),
  r('INTERACT_001', 1, '§6.2', 'Continue an interaction via --context-id'),
  r(
    'INTERACT_002',
    1,
    '§6.2',
    '--task-id with or without --context-id; when both given they correspond; a rejected id fails non-zero, creates no new task, surfaces the protocol error',
  ),
  r(
    'INTERACT_003',
    1,
    '§6.1, §2',
    'Never invents server-assigned identifiers; never assumes contextId denotes a chat session',
  ),
  r(
    'INTERACT_004',
    1,
    '§6.3',
    'Reports taskId/contextId/state on completion and interruption, copy-pasteable, with an exact resume command',
  ),
  r(
    'INTERACT_005',
    1,
    '§4.3, §6.1, §6.4',
    'Stateless: no stored last taskId/contextId replay; no --continue; state never only in process memory',
  ),
  r(
    'TASK_POLL_001',
    1,
    '§7.3',
    'Polling path available — one-shot task get, plus task get --wait to a terminal or interrupted state',
  ),
  r(
    'TASK_POLL_002',
    1,
    '§7.3',
    '--poll-interval / --timeout honored; bounded backoff; no busy-loop; interruptible without losing printed taskId',
  ),
  r(
    'TASK_POLL_003',
    1,
    '§7.1, §7.3',
    'Stops immediately on interrupted states; TASK_STATE_UNSPECIFIED is neither, so polling continues under --timeout',
  ),
  r(
    'TASK_POLL_004',
    1,
    '§7.3',
    'When a wait prefers streaming, falls back to polling on stream failure and drives to terminal/interrupted',
  ),
  r(
    'OUT_001',
    1,
    '§9.1, §9.5, §6.3',
    'Standard output names context/task/state in every mode; payload to stdout, diagnostics to stderr, never mixed',
  ),
  r(
    'OUT_002',
    1,
    '§9.3, App. B',
    '-o json (no --stream): exactly one terminal protocol document, never an event log, never implicit JSONL',
  ),
  r(
    'OUT_003',
    1,
    '§9.3, §9.4, App. B',
    '-o json --stream: JSONL one object per line, final line terminal; a stream-terminating error is a final error line',
  ),
  r(
    'OUT_004',
    1,
    '§9.4, App. B, App. E',
    'Errors machine-readable, consistent across transports; protocol error name vs A2ACLI_ERR_* code; no invented codes; hint field',
  ),
  r(
    'OUT_005',
    1,
    '§9.2, §4.1',
    'text floor: one Label: value per line, stable labels, no control sequences; blocks under their own Label: line; interactive auto-degrades to text off-TTY',
  ),
  r(
    'OUT_006',
    1,
    '§9.5',
    'When not waiting (--async), still emits a result object carrying at least taskId and contextId',
  ),
  r(
    'EXIT_001',
    1,
    '§9.6, App. E',
    'Implements exit statuses 0/1/2; any reserved status carries its documented meaning and agrees with the reported error',
  ),
  r(
    'EXIT_002',
    1,
    '§4.6, §9.6',
    'Execution decoupled from outcome: exits 0 on a reported turn even when the task is FAILED/REJECTED or paused',
  ),
  r(
    'AUTH_001',
    1,
    '§10.1',
    "Scriptable credentials — bearer, API key, env equivalents attached per the agent's declared security scheme; --svc-param separate",
  ),
  r(
    'AUTH_002',
    1,
    '§10.1, §4.5',
    'An env-var equivalent for each credential flag; documents process-table and shell-history exposure; flag > env precedence kept',
  ),
  r(
    'AUTH_003',
    1,
    '§10.1, §4.5',
    'A prominent stderr warning when a credential is sent with certificate verification disabled (--insecure)',
  ),
  r(
    'AUTH_004',
    1,
    '§10.1, §5.2',
    'Redacts credential material from diagnostic output including --debug raw-wire logging',
  ),
  r('TX_001', 1, '§11.1', 'Transport selected from the Agent Card, honoring declared preference order'),
  r(
    'TX_002',
    1,
    '§11.1, §4.5',
    'Uses first supportedInterfaces entry it supports absent a client preference; --transport repeatable and ordered',
  ),
  r(
    'TX_003',
    1,
    '§11.1',
    'Sets the selected AgentInterface tenant in every request exactly as declared; omits it when none declared',
  ),
  r(
    'VER_001',
    1,
    '§11.2',
    'A2A-Version signaled explicitly on every request; down only within 1.x, never below 1.0; no silent downgrade',
  ),
  r(
    'DEFAULT_001',
    1,
    '§4.5',
    'Ships baseline defaults, each overridable by an explicit flag; exposes effective defaults (see the breakdown)',
  ),
  r(
    'CONFIG_001',
    1,
    '§6.4',
    'Persisted config: conventional path, secrets 0600, inspectable via read-only config show, user-editable; never records session state',
  ),
  r(
    'CLI_001',
    1,
    '§5.1, §5.2, §4.5',
    'help and <command> --help print usage and exit; -v/--version prints the tool version; --help shows the effective defaults',
  ),
  r(
    'SKILL_001',
    1,
    '§12.1, §12.2',
    'Ships exactly one Agent Skill, generic and token-efficient, deferring to runtime help',
    {
      na: 'synapse ships no Agent Skill',
    },
  ),
  r('SKILL_002', 1, '§12.3', 'Skill and specification kept as distinct layers', {
    na: 'synapse ships no Agent Skill',
  }),
  r('CARD_GET_002', 2, '§8.1', 'card get --validate — validate the Agent Card against the A2A schema'),
  r('TASK_LIST_001', 2, '§5.1, App. A', 'task list — cursor-paginated, filterable by status and context'),
  r('TASK_SUBSCRIBE_001', 2, '§5.1, §7.2', "task subscribe — (re)subscribe to a task's event stream"),
  r(
    'TASK_SUBSCRIBE_002',
    2,
    '§7.4, §7.2',
    'Stream resumption after disconnect; first event re-delivers the full Task, so no separate get is required',
  ),
  r('AUTH_005', 2, '§10.2', 'auth login — OAuth 2.1 device-code flow'),
  r('AUTH_006', 2, '§10.2', 'auth login — OAuth 2.1 client-credentials flow'),
  r('AUTH_007', 2, '§10.2', 'Secure token storage with automatic attachment on later calls'),
  r('TX_004', 2, '§11.1', 'At least two transports supported and selectable'),
  r(
    'VER_003',
    2,
    '§11.3',
    'Verifies a capability on the Agent Card before invoking a capability-gated operation',
  ),
  r(
    'CONFIG_002',
    2,
    '§6.4',
    'Configuration precedence (flag → env → local → global → built-in), scopeable by agent-card reference; config show reports value and source',
  ),
  r('DOWNLOAD_001', 2, '§5.1', 'task download — save task artifacts to disk'),
  r(
    'OUT_007',
    2,
    '§5.2',
    '--debug enables diagnostic logging to stderr, including the raw protocol messages exchanged on the wire',
  ),
  r('CONFORM_001', 2, '§5.1', 'conformance — smoke-check a live agent against the A2A TCK'),
  r('CLI_002', 2, '§5.1', 'completion <shell> — emits a shell completion script for the named shell'),
  r('PUSH_001', 2, '§5.1, App. A', 'task push-config create / get / list / delete'),
  r(
    'CARD_GET_003',
    3,
    '§8.1, §10.4',
    'Authenticated extended Agent Card, fetched only via a security scheme advertised on the public card',
    {
      notClaimed: 'not implemented: outside the Tier 3 items synapse claims (issue 21)',
    },
  ),
  r(
    'AUTH_008',
    3,
    '§10.4',
    'Never presents a credential to an Agent Card endpoint that has not declared a scheme accepting it',
    {
      notClaimed: 'not implemented: outside the Tier 3 items synapse claims (issue 21)',
    },
  ),
  r(
    'CARD_GET_004',
    3,
    '§8.1',
    'Agent Card signature verification per A2A §8.4.3 — verified / unverifiable / absent',
  ),
  r('CARD_GET_005', 3, '§8.1', 'Catalog / registry resolution wherever --agent-card takes a reference'),
  r('PUSH_002', 3, '§7.2', 'Local webhook receiver able to accept push notifications'),
  r('CHAT_001', 3, '§6.2, §5.1', 'Interactive chat carrying context and task across turns'),
  r('TX_005', 3, '§11.1', 'gRPC transport', {
    notClaimed:
      'not implemented: the hub has no gRPC binding (API Gateway does not carry it), so neither does synapse',
  }),
  r('AUTH_009', 3, '§10.3', 'Mutual TLS', {
    notClaimed: 'not implemented: outside the Tier 3 items synapse claims (issue 21)',
  }),
  r('AUTH_010', 3, '§10.3', 'OpenID Connect', {
    notClaimed: 'not implemented: outside the Tier 3 items synapse claims (issue 21)',
  }),
  r('AUTH_011', 3, '§10.3', 'Handles in-task AUTH_REQUIRED resolution', {
    notClaimed: 'not implemented: outside the Tier 3 items synapse claims (issue 21)',
  }),
  r('DEMO_SERVER_001', 3, '§5.1, §14', 'demo-server / mock agent mode', {
    notClaimed: 'not implemented as such: `synapse dev` runs a real local hub with an agent instead',
  }),
  r('VER_002', 3, '§11.3, A2A §4.6', 'Declares server-required protocol extensions', {
    notClaimed: 'not implemented: outside the Tier 3 items synapse claims (issue 21)',
  }),
];

/** The six defaults of §4.5, as the report's breakdown names them; a test proves one by `[A2ACLI_DEFAULT_001/<key>]`. */
export const DEFAULTS = {
  transport_server_preference_order: 'Transport — server preference order (override: --transport)',
  task_completion_wait_by_default: 'Task completion — wait by default (override: --async)',
  output_human_readable_text: 'Output — human-readable text (override: -o json)',
  detail_level_concise: 'Detail level — concise (override: --verbose)',
  protocol_version_highest_mutual:
    'Protocol version — highest mutually supported, never below 1.0 (override: --a2a-version)',
  transport_security_tls_on:
    'Transport security — TLS verification on (override: --insecure, with a warning)',
} as const;

export const ERROR_CODES = [
  'A2ACLI_ERR_USAGE',
  'A2ACLI_ERR_CARD_NOT_FOUND',
  'A2ACLI_ERR_CARD_INVALID',
  'A2ACLI_ERR_UNREACHABLE',
  'A2ACLI_ERR_CREDENTIALS_MISSING',
  'A2ACLI_ERR_AUTH_FAILED',
  'A2ACLI_ERR_TIMEOUT',
  'A2ACLI_ERR_INTERNAL',
] as const;

/** The identifiers a test name carries: `[A2ACLI_SEND_005]`, `[A2ACLI_DEFAULT_001/detail_level_concise]`, `[A2ACLI_ERR_TIMEOUT]`. */
export const tagsOf = (testName: string): string[] =>
  [...testName.matchAll(/\[(A2ACLI_[A-Z0-9_]+(?:\/[a-z0-9_]+)?)\]/g)].map((m) => m[1]!);
