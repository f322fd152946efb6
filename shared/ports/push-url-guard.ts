/** The check a push URL passes when a config is created (shared/adapters/http/url-guard.ts, docs/ssrf.md). */
/** The verdict on a URL a client asked the hub to call. `reason` is safe to return to that client. */
export type UrlVerdict = { ok: true; url: string } | { ok: false; reason: string };

/**
 * Checks a push URL without DNS (scheme, userinfo, host name, literal addresses, port, length), as
 * done when a push config is created. `url` in an accepted verdict is the normalized URL to store.
 * The sender checks again, with the addresses the name resolves to, before every delivery.
 */
export interface PushUrlGuard {
  check(url: string): UrlVerdict;
}
