/**
 * Whether a person is watching (a2a-cli SPEC §4.1: an interactive mode is gated by terminal detection and
 * never the default): standard output and input are both a terminal, and the format is `text`. Anything
 * else — a pipe, a file, CI, `-o json` — gets the plain output of SPEC §9.2 / §9.3 (A2ACLI_OUT_005).
 * Kept apart from cli/interactive.ts so that asking does not load the prompt and progress libraries.
 */
import type { OutputFormat } from './output.ts';

export const personWatching = (format: OutputFormat): boolean =>
  format === 'text' && process.stdout.isTTY === true && process.stdin.isTTY === true;
