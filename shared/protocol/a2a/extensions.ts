/**
 * Extension negotiation (A2A extensions; docs/generations.md uses it): a client activates extensions per
 * request by listing their URIs in `A2A-Extensions` (v0.3: `X-A2A-Extensions`);
 * the server activates those it declares, echoes them in the same response
 * header, ignores the others (an unknown URI, or another version of a
 * declared one: never a fallback), and refuses any request, whatever the
 * method, that leaves out an extension the card marks `required`.
 */
import type { AgentExtension } from '../../agent/api.ts';
import type { A2AVersion } from './codec.ts';
import { A2AProtocolError } from './errors.ts';

/** The request and response header, per version (lower-cased: request headers are). */
export const extensionsHeaderOf = (version: A2AVersion): string =>
  version === '1.0' ? 'a2a-extensions' : 'x-a2a-extensions';

/** The URIs a header value lists: comma-separated, blanks dropped, duplicates once. */
export function requestedExtensions(header: string | undefined): string[] {
  if (!header) return [];
  return [
    ...new Set(
      header
        .split(',')
        .map((uri) => uri.trim())
        .filter(Boolean),
    ),
  ];
}

/**
 * The extensions a request activates, in the card's order; throws -32008
 * (ExtensionSupportRequiredError) naming every required one it left out.
 */
export function activateExtensions(
  declared: readonly AgentExtension[] | undefined,
  /** Lower-cased request headers: either name is read, whatever the version (clients mix them up). */
  headers: Record<string, string | undefined>,
): string[] {
  const header = [headers['a2a-extensions'], headers['x-a2a-extensions']].filter(Boolean).join(',');
  const requested = new Set(requestedExtensions(header));
  const missing = (declared ?? []).filter((e) => e.required && !requested.has(e.uri)).map((e) => e.uri);
  if (missing.length) throw A2AProtocolError.extensionSupportRequired(missing);
  return (declared ?? []).filter((e) => requested.has(e.uri)).map((e) => e.uri);
}

/** The response header echoing what was activated (none when nothing was). */
export function activatedExtensionsHeader(version: A2AVersion, activated: readonly string[]) {
  return activated.length ? { [extensionsHeaderOf(version)]: activated.join(', ') } : {};
}
