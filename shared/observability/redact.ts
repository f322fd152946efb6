/**
 * What never reaches a log line: credentials and signatures, wherever they sit in what is logged (an
 * event logged whole, a header map, an error's details). The logger's JSON replacer calls this for every
 * key; a value under a sensitive key is replaced, and a bearer token or API key inside any string is cut.
 */
const SENSITIVE_KEY =
  /^(authorization|proxy-authorization|cookie|set-cookie|x-api-key|x-synapse-signature|token|access_token|id_token|refresh_token|api_?key|secret|client_secret|password|credentials?|usage_?key|usageIdentifierKey)$/i;

const BEARER = /\b(bearer)\s+[A-Za-z0-9._~+/=-]+/gi;
const API_KEY = /\bsyn_[a-z2-7]{16}_[A-Za-z0-9_-]{43}\b/g;
const JWT = /\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/g;

export const REDACTED = '[REDACTED]';

export const redactSecrets = (key: string, value: unknown): unknown => {
  if (
    key !== '' &&
    SENSITIVE_KEY.test(key) &&
    value !== undefined &&
    value !== null &&
    typeof value !== 'object'
  )
    return REDACTED;
  if (key !== '' && SENSITIVE_KEY.test(key) && value && typeof value === 'object') return REDACTED;
  if (typeof value === 'string' && value.length >= 20)
    return value.replace(BEARER, `$1 ${REDACTED}`).replace(API_KEY, REDACTED).replace(JWT, REDACTED);
  return value;
};
