/**
 * Logs and metrics (shared/observability/index.ts): what the hub reads of Powertools' variables to
 * decide itself (Powertools reads LOG_LEVEL, POWERTOOLS_LOG_LEVEL and the rest on its own).
 */
import { DEFAULT_SERVICE_NAME, METRICS_NAMESPACE } from '../observability/names.ts';
import { ALL_FUNCTIONS, type Setting, switchOn, text } from './settings.ts';

/** Powertools' reading of a flag: these are true, anything else false. */
const powertoolsFlag = switchOn(
  ['1', 'true', 'yes', 'on', 'y'],
  '`1`, `true`, `yes`, `on` or `y` (any case) is true; anything else false',
);

export const POWERTOOLS_SERVICE_NAME = {
  name: 'POWERTOOLS_SERVICE_NAME',
  doc: 'The `service` key of every log line and metric.',
  format: () => text('a name'),
  default: DEFAULT_SERVICE_NAME,
  readBy: ALL_FUNCTIONS,
} satisfies Setting<string>;

export const POWERTOOLS_METRICS_NAMESPACE = {
  name: 'POWERTOOLS_METRICS_NAMESPACE',
  doc: 'The CloudWatch namespace of the metrics.',
  format: () => text('a namespace'),
  default: METRICS_NAMESPACE,
  readBy: ALL_FUNCTIONS,
} satisfies Setting<string>;

export const POWERTOOLS_METRICS_DISABLED = {
  name: 'POWERTOOLS_METRICS_DISABLED',
  doc: 'Turns the metrics off (or, false, on outside Lambda).',
  format: () => powertoolsFlag,
  defaultText: 'unset: metrics in Lambda only',
  readBy: ALL_FUNCTIONS,
} satisfies Setting<boolean>;

export const POWERTOOLS_DEV = {
  name: 'POWERTOOLS_DEV',
  doc: "Powertools' development mode: no metrics unless POWERTOOLS_METRICS_DISABLED says otherwise.",
  format: () => powertoolsFlag,
  default: false,
  readBy: ALL_FUNCTIONS,
} satisfies Setting<boolean>;

export const AWS_LAMBDA_FUNCTION_NAME = {
  name: 'AWS_LAMBDA_FUNCTION_NAME',
  doc: 'Set by Lambda: where it is set, the code runs in Lambda (metrics on by default).',
  format: () => text('a function name'),
  defaultText: 'unset outside Lambda',
  readBy: ALL_FUNCTIONS,
} satisfies Setting<string>;
