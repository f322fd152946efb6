/**
 * Clipping text to a limit: error messages, log fields, status messages, a peer's text. The one helper
 * for it, so every clipped text ends the same way (`…`) and none is cut inside a character.
 */

/**
 * What a clipped text must fit in: UTF-16 code units (`chars`, what `length` counts), UTF-8 bytes
 * (`bytes`), and the UTF-8 bytes of its JSON string (`jsonBytes`, quotes and escapes included: a
 * control character takes six). Each is optional; a number alone limits characters.
 */
export interface TextLimit {
  chars?: number;
  bytes?: number;
  jsonBytes?: number;
}

const utf8 = (s: string): number => Buffer.byteLength(s, 'utf8');

const isHighSurrogate = (code: number): boolean => code >= 0xd800 && code <= 0xdbff;

/**
 * `s` when it fits `limit`, else its longest prefix that fits with an ellipsis (`…`) after it, never
 * ending in half a surrogate pair (a lone surrogate is not valid Unicode for strict JSON parsers).
 */
export const clip = (s: string, limit: number | TextLimit): string => {
  const {
    chars = Number.POSITIVE_INFINITY,
    bytes,
    jsonBytes,
  } = typeof limit === 'number' ? { chars: limit } : limit;
  const fits = (t: string): boolean =>
    t.length <= chars &&
    (bytes === undefined || utf8(t) <= bytes) &&
    (jsonBytes === undefined || utf8(JSON.stringify(t)) <= jsonBytes);
  if (fits(s)) return s;
  // every code unit takes a byte at least: no longer prefix can fit
  let keep = Math.max(0, Math.min(s.length, chars - 1, bytes ?? s.length, jsonBytes ?? s.length));
  // the longest prefix that fits with the ellipsis (fitting only gets easier as the prefix shrinks)
  let lo = 0;
  while (lo < keep) {
    const mid = Math.ceil((lo + keep) / 2);
    if (fits(`${s.slice(0, mid)}…`)) lo = mid;
    else keep = mid - 1;
  }
  if (keep > 0 && isHighSurrogate(s.charCodeAt(keep - 1))) keep--;
  return `${s.slice(0, keep)}…`;
};
