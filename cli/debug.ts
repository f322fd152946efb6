/**
 * `--debug` (a2a-cli SPEC §9.5, §10.1): every request and answer on standard error — method, URL, status,
 * time, and the bodies (an SSE answer as its frames arrive) — with every credential this run was given
 * replaced by `[redacted]`, wherever it appears (a header, a query parameter, a body), and so is every
 * OAuth secret (a client secret, an access, refresh or ID token, a device or authorization code, in a
 * JSON or form body) and every Authorization header's credential, known or not. Standard output stays
 * the answer alone.
 */
export const REDACTED = '[redacted]';

/** Replaces each secret (and its URL-encoded form) in `text`. */
export const redact = (text: string, secrets: readonly string[]): string =>
  secrets
    .filter((s) => s.length > 0)
    .flatMap((s) => [s, encodeURIComponent(s)])
    .reduce((out, secret) => out.split(secret).join(REDACTED), text);

const OAUTH_SECRETS =
  'access_token|refresh_token|id_token|device_code|client_secret|client_assertion|code|assertion';
const OAUTH_JSON = new RegExp(`("(?:${OAUTH_SECRETS})"\\s*:\\s*)"(?:[^"\\\\]|\\\\.)*"`, 'g');
const OAUTH_FORM = new RegExp(`(^|[?&\\s])(${OAUTH_SECRETS})=[^&\\s]*`, 'g');

/** Any OAuth secret in `text` (a JSON or form body), whoever's. */
export const redactOAuth = (text: string): string =>
  text.replace(OAUTH_JSON, `$1"${REDACTED}"`).replace(OAUTH_FORM, `$1$2=${REDACTED}`);

/** An Authorization header's value: its scheme, never its credential. */
const authorizationShown = (value: string) => `${value.split(/\s+/)[0]} ${REDACTED}`;

/** `fetchImpl`, logging each exchange to stderr with `secrets` redacted. */
export function debugFetch(fetchImpl: typeof fetch, secrets: readonly string[]): typeof fetch {
  const log = (line: string) => process.stderr.write(`debug: ${redactOAuth(redact(line, secrets))}\n`);
  return async (input, init) => {
    const url = typeof input === 'string' || input instanceof URL ? input.toString() : input.url;
    const method = init?.method ?? 'GET';
    const started = performance.now();
    log(`> ${method} ${url}`);
    for (const [name, value] of new Headers(init?.headers))
      log(`> ${name}: ${/^(proxy-)?authorization$/.test(name) ? authorizationShown(value) : value}`);
    if (typeof init?.body === 'string' || init?.body instanceof URLSearchParams)
      log(`> ${init.body.toString()}`);
    const response = await fetchImpl(input, init);
    log(`< ${response.status} ${url} (${Math.round(performance.now() - started)} ms)`);
    if (!response.body) return response;
    const [mine, theirs] = response.body.tee();
    void (async () => {
      const decoder = new TextDecoder();
      const reader = mine.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        for (const line of decoder.decode(value, { stream: true }).split('\n'))
          if (line.trim()) log(`< ${line}`);
      }
    })().catch(() => {});
    return new Response(theirs, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}
