/**
 * `npm run docs:config`: writes docs/configuration.md from the setting declarations in shared/config/
 * (shared/config/catalog.ts). `--check` writes nothing and exits 1 when the committed page differs
 * (test/unit/config/docs.test.ts checks the same).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { configurationDoc } from '../shared/config/catalog.ts';

export const CONFIGURATION_DOC = join(import.meta.dirname, '..', 'docs', 'configuration.md');

/** Whether the committed page is what the declarations make. */
export const configurationDocIsCurrent = (path = CONFIGURATION_DOC): boolean => {
  try {
    return readFileSync(path, 'utf8') === configurationDoc();
  } catch {
    return false;
  }
};

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { check: { type: 'boolean', default: false } } });
  if (values.check) {
    if (!configurationDocIsCurrent()) {
      console.error('docs/configuration.md is stale: run npm run docs:config');
      process.exit(1);
    }
  } else {
    writeFileSync(CONFIGURATION_DOC, configurationDoc());
    console.log(`wrote ${CONFIGURATION_DOC}`);
  }
}
