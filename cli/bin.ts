#!/usr/bin/env node
/**
 * The `synapse` bin. `synapse --version` alone is answered here, before the parser and the A2A client
 * are loaded (they are a chunk of their own in the bundle, cli/build.ts), since a version check should
 * cost no more than starting node; everything else is cli/main.ts.
 */
import { VERSION } from './version.ts';

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-v')) process.stdout.write(`${VERSION}\n`);
else await import('./main.ts');
