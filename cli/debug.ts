/**
 * `--debug` (a2a-cli SPEC §9.5, §10.1): every request and answer on standard error — method, URL, status,
 * time, and the bodies (an SSE answer as its frames arrive) — with every credential this run was given
 * replaced by `[redacted]`, wherever it appears (a header, a query parameter, a body). Standard output
 * stays the answer alone.
 */
export const REDACTED = '[redacted]';

/** Replaces each secret (and its URL-encoded form) in `text`. */
export const redact = (text: string, secrets: readonly string[]): string =>
  secrets
    .filter((s) => s.length > 0)
    .flatMap((s) => [s, encodeURIComponent(s)])
    .reduce((out, secret) => out.split(secret).join(REDACTED), text);

/** `fetchImpl`, logging each exchange to stderr with `secrets` redacted. */
export function debugFetch(fetchImpl: typeof fetch, secrets: readonly string[]): typeof fetch {
  const log = (line: string) => process.stderr.write(`debug: ${redact(line, secrets)}\n`);
  return async (input, init) => {
    const url = typeof input === 'string' || input instanceof URL ? input.toString() : input.url;
    const method = init?.method ?? 'GET';
    const started = performance.now();
    log(`> ${method} ${url}`);
    for (const [name, value] of new Headers(init?.headers)) log(`> ${name}: ${value}`);
    if (typeof init?.body === 'string') log(`> ${init.body}`);
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
