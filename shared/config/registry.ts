/** The agent registry's own settings (docs/registry.md); its trust and probe settings have files of their own. */
import { DEFAULT_CATALOG_REFRESH_MS } from '../app/registry/catalog.ts';
import { type Setting, text, wholeNumber } from './settings.ts';

export const REGISTRY_CATALOG_REFRESH_MS = {
  name: 'REGISTRY_CATALOG_REFRESH_MS',
  doc: "How stale a container's in-memory catalog may get before a search reads the store's change feed again (0: every request).",
  format: () => wholeNumber(0, 60_000, 'milliseconds'),
  default: DEFAULT_CATALOG_REFRESH_MS,
  readBy: ['jsonrpc', 'registry', 'rest', 'synapse'],
} satisfies Setting<number>;

export const REGISTRY_DISPLAY_NAME = {
  name: 'REGISTRY_DISPLAY_NAME',
  doc: "The registry's name as the public AI Catalog (/.well-known/ai-catalog.json) gives it as its host.",
  format: () => text('a name'),
  default: 'Synapse agent registry',
  readBy: ['registry'],
} satisfies Setting<string>;
