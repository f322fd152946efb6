/**
 * `synapse registry search | show | publish | approve | reject`: the hub's agent registry (docs/registry.md).
 * Search is ARD's (text, with `--skill` as a filter on the skills' ids; without text, ARD's browse by the
 * same filter); publishing and review are the hub's own API. json prints the registry's own documents: the
 * search's `{results}` (a browse's `{items, total}`), a record.
 */
import { readFileSync } from 'node:fs';
import { type CommandGroup, print, run } from '../command.ts';
import { CliError } from '../errors.ts';
import { HubClient, type HubOptions, hubOption } from '../hub/client.ts';
import { type OutputFormat, PROGRAM } from '../output.ts';

const REGISTRY = '/registry';

/** A usage error of a check (yargs hands a thrown error to cli/main.ts's fail handler as is). */
const usage = (message: string) => new CliError('A2ACLI_ERR_USAGE', message, `${PROGRAM} registry --help`);

// biome-ignore lint/suspicious/noExplicitAny: the registry's JSON, read field by field for text
type Doc = Record<string, any>;

const recordText = (r: Doc): string =>
  `${[
    `Record: ${r.id}`,
    `Name: ${r.name}`,
    `Identifier: ${r.identifier}`,
    `State: ${r.state}`,
    `Visibility: ${r.visibility}`,
    `Latest version: ${r.latestVersion}`,
    ...(r.liveVersion !== undefined ? [`Live version: ${r.liveVersion}`] : []),
    `Health: ${r.health ?? 'unknown'}`,
    ...(r.cardUrl ? [`Card URL: ${r.cardUrl}`] : []),
    ...(Array.isArray(r.reviews)
      ? r.reviews.map(
          (v: Doc) =>
            `Review: v${v.version} ${v.decision} by ${v.by} at ${v.at}${v.note ? ` — ${v.note}` : ''}`,
        )
      : []),
  ].join('\n')}\n`;

/** A catalog entry on one line: its record id (what `show` takes), name, health, its skills. */
const entryLine = (e: Doc): string =>
  [
    `Agent: ${e.metadata?.recordId ?? e.identifier}`,
    e.displayName,
    `health ${e.metadata?.health ?? 'unknown'}`,
    ...(e.score !== undefined ? [`score ${e.score}`] : []),
    ...(Array.isArray(e.capabilities) && e.capabilities.length ? [`skills ${e.capabilities.join(',')}`] : []),
  ].join('  ');

const recordOut = (format: OutputFormat, record: Doc) => print(format, record, recordText(record));

/** A quoted value of ARD's browse expression (a doubled quote is a quote). */
const quoted = (v: string) => `'${v.replaceAll("'", "''")}'`;

/** `--card-url` or `--card <file>`: what publishing sends. */
const cardSource = (args: { cardUrl?: string; card?: string }): Doc => {
  if (args.cardUrl) return { cardUrl: args.cardUrl };
  let text: string;
  try {
    text = readFileSync(args.card!, 'utf8');
  } catch (e) {
    throw new CliError('A2ACLI_ERR_USAGE', `cannot read ${args.card}: ${(e as Error).message}`);
  }
  try {
    return { card: JSON.parse(text) };
  } catch {
    throw new CliError('A2ACLI_ERR_CARD_INVALID', `${args.card} is not JSON`);
  }
};

const review = (decision: 'approve' | 'reject') =>
  [
    `${decision} <id>`,
    decision === 'approve'
      ? 'approve the version under review: it goes live (the approve right)'
      : 'reject the version under review (the approve right)',
    // biome-ignore lint/suspicious/noExplicitAny: a yargs builder
    (c: any) =>
      c
        .positional('id', { type: 'string', demandOption: true, describe: 'the record id' })
        .option('record-version', {
          type: 'number',
          describe: 'the version under review (checked by the hub)',
        })
        .option('note', { type: 'string', describe: 'why' }),
    run<HubOptions & { id: string; recordVersion?: number; note?: string }>(async (args) => {
      const hub = new HubClient(args);
      const body = {
        ...(args.recordVersion !== undefined ? { version: args.recordVersion } : {}),
        ...(args.note ? { note: args.note } : {}),
      };
      recordOut(
        args.output,
        (await hub.call(
          'POST',
          `${REGISTRY}/records/${encodeURIComponent(args.id)}:${decision}`,
          body,
        )) as Doc,
      );
    }),
  ] as const;

export const registryCommands: CommandGroup = (y) =>
  y.command('registry', 'the hub’s agent registry: search, show, publish, approve, reject', (r) =>
    hubOption(r)
      .command(
        'search [text]',
        'find approved agents by text, by skill, or both',
        (c) =>
          c
            .positional('text', { type: 'string', describe: 'what the agent does, in words' })
            .option('skill', {
              type: 'array',
              string: true,
              describe: 'a skill id the agent declares (again: any of them)',
            })
            .option('page-size', { type: 'number' })
            .option('page-token', { type: 'string' })
            .check((a) => {
              if (!a.text && !a.skill?.length) throw usage('give the text to search for, or --skill');
              return true;
            }),
        run<HubOptions & { text?: string; skill?: string[]; pageSize?: number; pageToken?: string }>(
          async (args) => {
            const hub = new HubClient(args);
            const skills = args.skill ?? [];
            let found: Doc;
            if (args.text) {
              found = (await hub.call('POST', `${REGISTRY}/search`, {
                query: { text: args.text, ...(skills.length ? { filter: { 'skills.id': skills } } : {}) },
                ...(args.pageSize ? { pageSize: args.pageSize } : {}),
                ...(args.pageToken ? { pageToken: args.pageToken } : {}),
              })) as Doc;
            } else {
              found = (await hub.call('GET', `${REGISTRY}/agents`, undefined, {
                filter: `skills.id IN (${skills.map(quoted).join(', ')})`,
                pageSize: args.pageSize?.toString(),
                pageToken: args.pageToken,
              })) as Doc;
            }
            const entries: Doc[] = found.results ?? found.items ?? [];
            const lines = entries.map(entryLine);
            if (found.pageToken) lines.push(`Next page: --page-token ${found.pageToken}`);
            print(args.output, found, lines.length ? `${lines.join('\n')}\n` : '');
          },
        ),
      )
      .command(
        'show <id>',
        'show a record: its state, versions, reviews and health',
        (c) => c.positional('id', { type: 'string', demandOption: true, describe: 'the record id' }),
        run<HubOptions & { id: string }>(async (args) => {
          const hub = new HubClient(args);
          recordOut(
            args.output,
            (await hub.call('GET', `${REGISTRY}/records/${encodeURIComponent(args.id)}`)) as Doc,
          );
        }),
      )
      .command(
        'publish',
        'publish an agent card (by URL or file) for review',
        (c) =>
          c
            .option('card-url', { type: 'string', describe: 'where the hub fetches the card' })
            .option('card', { type: 'string', describe: 'a card file' })
            .option('visibility', { choices: ['public', 'tenant', 'private'] as const })
            .option('draft', { type: 'boolean', describe: 'keep it a draft, not yet submitted' })
            .conflicts('card-url', 'card')
            .check((a) => {
              if (!a.cardUrl && !a.card) throw usage('give --card-url or --card');
              return true;
            }),
        run<HubOptions & { cardUrl?: string; card?: string; visibility?: string; draft?: boolean }>(
          async (args) => {
            const body = {
              ...cardSource(args),
              ...(args.visibility ? { visibility: args.visibility } : {}),
              ...(args.draft ? { draft: true } : {}),
            };
            const hub = new HubClient(args);
            recordOut(args.output, (await hub.call('POST', `${REGISTRY}/records`, body)) as Doc);
          },
        ),
      )
      .command(...review('approve'))
      .command(...review('reject'))
      .demandCommand(1, 'name a registry command: search, show, publish, approve or reject'),
  );
