/**
 * The hub's agent: its card (v1.0, or the v0.3 view), its skills, whether its signature verifies against
 * the hub's own JWKS, and the registry's agents when the hub has a registry.
 */
import type { JWK } from 'jose';
import { useEffect, useState } from 'preact/hooks';
import { verifyCardSignatures } from '../../shared/protocol/a2a/card-signature.ts';
import { type ApiError, api } from './api.ts';
import { JsonTree } from './json-tree.tsx';

type Card = Record<string, unknown>;
type Signature = { status: 'verified' | 'unverified' | 'unsigned' | 'checking'; text: string };

/** The hub's JWKS, the only keys a card signature is checked with (never a key the card names). */
const JWKS_TRUST = "the hub's JWKS";

/** Verifies the card's signatures with the hub's JWKS, as the registry verifies a card (docs/registry.md#trust). */
async function verify(card: Card): Promise<Signature> {
  let keys: Record<string, unknown>[] | undefined;
  const keyFor = async ({ kid }: { kid: string }) => {
    keys ??= (await api.jwks()).keys;
    const key = keys.find((k) => k.kid === kid);
    return key ? { key: key as JWK, trustedBy: JWKS_TRUST } : undefined;
  };
  try {
    const outcome = await verifyCardSignatures(card, keyFor);
    if (outcome.status === 'verified') return { status: 'verified', text: `verified (kid ${outcome.kid})` };
    if (outcome.status === 'unsigned') return { status: 'unsigned', text: 'unsigned' };
    return { status: 'unverified', text: `not verified: ${outcome.reason}` };
  } catch (e) {
    return {
      status: 'unverified',
      text: `not verified: the JWKS cannot be read (${(e as ApiError).message})`,
    };
  }
}

const str = (v: unknown) => (typeof v === 'string' ? v : v === undefined ? '' : JSON.stringify(v));

export function AgentView() {
  const [cards, setCards] = useState<{ v1?: Card; v03?: Card }>({});
  const [error, setError] = useState<string | undefined>();
  const [show, setShow] = useState<'v1' | 'v03'>('v1');
  const [sig, setSig] = useState<Signature>({ status: 'checking', text: 'checking…' });

  useEffect(() => {
    api
      .card(false)
      .then((v1) => {
        setCards((c) => ({ ...c, v1 }));
        void verify(v1).then(setSig, (e: Error) =>
          setSig({ status: 'unverified', text: `not verified: ${e.message}` }),
        );
      })
      .catch((e: ApiError) => setError(e.message));
    api
      .card(true)
      .then((v03) => setCards((c) => ({ ...c, v03 })))
      .catch(() => undefined);
  }, []);

  const card = cards.v1;
  const skills = Array.isArray(card?.skills) ? (card.skills as Card[]) : [];
  const interfaces = Array.isArray(card?.supportedInterfaces) ? (card.supportedInterfaces as Card[]) : [];
  const provider = card?.provider as Card | undefined;
  const caps = (card?.capabilities ?? {}) as Card;
  const schemes = (card?.securitySchemes ?? {}) as Record<string, Card>;
  return (
    <>
      <h1>Agent</h1>
      {error ? (
        <p class="error" role="alert">
          The agent card cannot be read: {error}
        </p>
      ) : null}
      {card ? (
        <section class="card" data-testid="agent-card" aria-labelledby="card-name">
          <div class="page-head">
            <h2 id="card-name">{str(card.name)}</h2>
            <span class="muted">version {str(card.version)}</span>
            <span class={`sig sig-${sig.status}`} data-testid="card-signature" data-status={sig.status}>
              {sig.status === 'verified' ? '✓ ' : sig.status === 'unverified' ? '✗ ' : ''}
              {sig.text}
            </span>
          </div>
          <p>{str(card.description)}</p>
          <dl class="facts-list">
            {provider ? (
              <div>
                <dt>Provider</dt>
                <dd>
                  {str(provider.organization)}{' '}
                  {provider.url ? <span class="muted">({str(provider.url)})</span> : null}
                </dd>
              </div>
            ) : null}
            <div>
              <dt>Interfaces</dt>
              <dd>
                <ul class="plain">
                  {interfaces.map((i, n) => (
                    <li key={n}>
                      <code>{str(i.protocolBinding)}</code> {str(i.url)}{' '}
                      <span class="muted">v{str(i.protocolVersion)}</span>
                    </li>
                  ))}
                </ul>
              </dd>
            </div>
            <div>
              <dt>Capabilities</dt>
              <dd>
                {Object.entries(caps)
                  .filter(([, v]) => typeof v === 'boolean')
                  .map(([k, v]) => `${k}: ${v ? 'yes' : 'no'}`)
                  .join(' · ') || '—'}
              </dd>
            </div>
            <div>
              <dt>Security schemes</dt>
              <dd>
                {Object.keys(schemes).length
                  ? Object.entries(schemes).map(([name, s]) => (
                      <div key={name}>
                        <code>{name}</code>: {Object.keys(s).join(', ')}
                      </div>
                    ))
                  : 'none'}
              </dd>
            </div>
          </dl>
          <h3>Skills</h3>
          <ul class="skills">
            {skills.map((s) => (
              <li key={str(s.id)}>
                <div>
                  <strong>{str(s.name)}</strong> <code class="muted">{str(s.id)}</code>
                </div>
                <p>{str(s.description)}</p>
                {Array.isArray(s.tags) && s.tags.length ? (
                  <p>
                    {(s.tags as string[]).map((t) => (
                      <span class="tag" key={t}>
                        {t}
                      </span>
                    ))}
                  </p>
                ) : null}
                {Array.isArray(s.examples) && s.examples.length ? (
                  <ul class="examples" aria-label="Examples">
                    {(s.examples as string[]).map((x, i) => (
                      <li key={i}>“{x}”</li>
                    ))}
                  </ul>
                ) : null}
              </li>
            ))}
          </ul>
          <h3>Raw card</h3>
          <div class="toggle" role="radiogroup" aria-label="Card version">
            {(['v1', 'v03'] as const).map((v) => (
              <label key={v}>
                <input type="radio" name="cardv" checked={show === v} onChange={() => setShow(v)} />{' '}
                {v === 'v1' ? 'v1.0' : 'v0.3'}
              </label>
            ))}
          </div>
          {cards[show] ? (
            <JsonTree value={cards[show]} open={1} label={`agent card ${show}`} />
          ) : (
            <p class="muted">The v0.3 view is not available.</p>
          )}
        </section>
      ) : !error ? (
        <p class="muted">Loading the card…</p>
      ) : null}
      <Registry />
    </>
  );
}

function healthTone(h: string) {
  return h === 'healthy' ? 'st-ok' : h === 'degraded' ? 'st-warn' : h === 'unreachable' ? 'st-bad' : '';
}

function Registry() {
  const [data, setData] = useState<{ items: Card[]; total: number } | undefined>();
  const [none, setNone] = useState<string | undefined>();
  useEffect(() => {
    api
      .registry()
      .then((r) => (Array.isArray(r?.items) ? setData(r) : setNone('no registry on this hub')))
      .catch((e: ApiError) =>
        setNone(
          e.status === 404 || e.status === 405
            ? 'no registry on this hub'
            : `no registry on this hub (${e.message})`,
        ),
      );
  }, []);
  return (
    <section class="card" aria-labelledby="reg-h">
      <h2 id="reg-h">Registry {data ? <span class="muted small">{data.total} agents</span> : null}</h2>
      {none ? <p class="muted">{none}</p> : null}
      {data && data.items.length === 0 ? <p class="muted">The registry lists no agent.</p> : null}
      {data?.items.length ? (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Identifier</th>
                <th scope="col">Health</th>
                <th scope="col">Version</th>
                <th scope="col">Signature</th>
              </tr>
            </thead>
            <tbody>
              {data.items.map((a, i) => {
                const meta = (a.metadata ?? {}) as Card;
                const health = str(meta.health ?? a.health ?? 'unknown');
                return (
                  <tr key={i} data-testid="registry-agent">
                    <td>
                      <strong>{str(a.displayName ?? a.name)}</strong>
                      {a.description ? <div class="muted small">{str(a.description)}</div> : null}
                    </td>
                    <td class="mono small">{str(a.identifier)}</td>
                    <td>
                      <span class={`status-text ${healthTone(health)}`}>{health}</span>
                    </td>
                    <td>{str(a.version) || '—'}</td>
                    <td>{str(meta.signature) || '—'}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      ) : null}
    </section>
  );
}
