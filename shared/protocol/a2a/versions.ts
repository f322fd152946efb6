/**
 * Version negotiation (the `A2A-Version` header): which codec a request's `A2A-Version`
 * asks for, and which agent card shape to serve.
 */
import type { A2ACodec, A2AVersion } from './codec.ts';
import { A2AProtocolError } from './errors.ts';
import { v1Codec } from './v1.ts';
import { v03Codec } from './v03.ts';

/** Supported versions, preferred first. */
export const SUPPORTED_VERSIONS: readonly A2AVersion[] = ['1.0', '0.3'];

export const A2A_VERSION_HEADER = 'A2A-Version';

/**
 * The wire version a request asks for. Only Major.Minor counts (a patch part is
 * ignored, "1" means 1.0); an absent or empty header means 0.3 (a client
 * that predates the header speaks 0.3).
 * Returns undefined for versions this server does not speak.
 */
export function negotiateVersion(header: string | undefined | null): A2AVersion | undefined {
  const value = header?.trim() ?? '';
  if (value === '') return '0.3';
  const m = /^(\d+)(?:\.(\d+))?(?:\.\d+)?$/.exec(value);
  if (!m) return undefined;
  const major = Number(m[1]);
  const minor = Number(m[2] ?? '0');
  if (major === 1 && minor === 0) return '1.0';
  if (major === 0 && minor === 3) return '0.3';
  return undefined;
}

export const codecFor = (version: A2AVersion): A2ACodec => (version === '1.0' ? v1Codec : v03Codec);

/** The codec for an `A2A-Version` header value; throws -32009 for unsupported versions. */
export function selectCodec(a2aVersionHeader: string | undefined | null): A2ACodec {
  const version = negotiateVersion(a2aVersionHeader);
  if (version === undefined) {
    throw A2AProtocolError.versionNotSupported(String(a2aVersionHeader).trim(), SUPPORTED_VERSIONS);
  }
  return codecFor(version);
}

/**
 * The codec to encode an error with when the request's version may be unusable:
 * the negotiated one, else v1.0 (VersionNotSupportedError only exists from 1.0 on).
 */
export function errorCodecFor(a2aVersionHeader: string | undefined | null): A2ACodec {
  return codecFor(negotiateVersion(a2aVersionHeader) ?? '1.0');
}

/**
 * Which agent card shape to serve: v1.0 unless v0.3 is asked for explicitly (see agent-card.ts), by
 * the query parameter `A2A-Version=0.3` (it wins: it is part of the URL a client was configured
 * with) or by the header `A2A-Version: 0.3`. Card fetchers send no header: absent means 1.0 here,
 * unlike for JSON-RPC requests; unknown versions get the v1.0 card too.
 */
export function cardVersionFor(
  a2aVersionHeader: string | undefined | null,
  a2aVersionQuery?: string | undefined | null,
): A2AVersion {
  const asked = a2aVersionQuery?.trim() ? a2aVersionQuery : a2aVersionHeader;
  return asked?.trim() && negotiateVersion(asked) === '0.3' ? '0.3' : '1.0';
}
