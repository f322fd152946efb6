/** The version `synapse --version` prints: set by the bundle (cli/build.ts), read from the package when run from source. */
import { readFileSync } from 'node:fs';

declare const SYNAPSE_VERSION: string | undefined;

export const VERSION =
  typeof SYNAPSE_VERSION === 'string'
    ? SYNAPSE_VERSION
    : (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string })
        .version;
