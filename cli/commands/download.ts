/**
 * `synapse task download <taskId>` (a2a-cli SPEC §5.1, §8.2): each part of each of the task's artifacts saved
 * as a file in `--dir` (default: the working directory) — a text part as `.txt`, a data part as `.json`, a
 * file's bytes under its own name, a file URL fetched (without the agent's credentials: the URL may be
 * anywhere). Everything is read and every name checked before anything is written; an existing file is not
 * overwritten unless `--force`. Prints each file written.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { basename, extname, join, resolve } from 'node:path';
import type { Part, Task } from '@a2a-js/sdk';
import { type AgentOptions, connect } from '../agent.ts';
import { type CommandGroup, print, run } from '../command.ts';
import { CliError } from '../errors.ts';
import { PROGRAM, stateName } from '../output.ts';
import { mimeTypes } from '../parts.ts';
import { transportFetch } from '../wire.ts';

interface DownloadArgs {
  id: string;
  dir: string;
  force: boolean;
}

/** One file to write. */
interface Planned {
  path: string;
  artifactId: string;
  part: number;
  mediaType: string;
  content: () => Promise<Uint8Array>;
}

/** A name safe to join under the directory: no separators, no dot-only names. */
const safeName = (name: string): string => {
  const base = [...basename(name.replace(/\\/g, '/'))]
    .map((ch) => (ch.charCodeAt(0) < 0x20 || '<>:"|?*'.includes(ch) ? '_' : ch))
    .join('');
  return base.replace(/^\.+$/, '') || '';
};

async function fetchUrl(url: string, options: AgentOptions): Promise<Uint8Array> {
  let response: Response;
  try {
    response = await transportFetch(options)(url);
  } catch (e) {
    const code = (e as { cause?: { code?: string } }).cause?.code;
    throw new CliError(
      'A2ACLI_ERR_UNREACHABLE',
      `cannot fetch ${url}${code ? ` (${code})` : ''}; nothing written`,
    );
  }
  if (!response.ok)
    throw new CliError('A2ACLI_ERR_UNREACHABLE', `${url} answered HTTP ${response.status}; nothing written`);
  return new Uint8Array(await response.arrayBuffer());
}

/** The files of `task`'s artifacts, named, one per part. */
function plan(
  task: Task,
  dir: string,
  options: AgentOptions,
  extension: (type: string) => string | false,
): Planned[] {
  const planned: Planned[] = [];
  const taken = new Set<string>();
  /** `name`, or `name-2`, `name-3` … when an earlier part of this download has it. */
  const unique = (name: string): string => {
    const ext = extname(name);
    const stem = name.slice(0, name.length - ext.length);
    let candidate = name;
    for (let n = 2; taken.has(candidate); n++) candidate = `${stem}-${n}${ext}`;
    taken.add(candidate);
    return candidate;
  };
  for (const artifact of task.artifacts) {
    const stem = safeName(artifact.name || artifact.artifactId) || 'artifact';
    artifact.parts.forEach((part: Part, i) => {
      const numbered = artifact.parts.length > 1 ? `${stem}-${i + 1}` : stem;
      const c = part.content;
      const typed = (fallback: string) => {
        const ext = part.mediaType ? extension(part.mediaType) : false;
        return `${numbered}.${ext || fallback}`;
      };
      let name: string;
      let content: () => Promise<Uint8Array>;
      switch (c?.$case) {
        case 'text':
          name = `${numbered}.txt`;
          content = async () => new TextEncoder().encode(c.value);
          break;
        case 'data':
          name = `${numbered}.json`;
          content = async () => new TextEncoder().encode(`${JSON.stringify(c.value, null, 2)}\n`);
          break;
        case 'raw':
          name = safeName(part.filename) || typed('bin');
          content = async () => new Uint8Array(c.value);
          break;
        case 'url':
          name = safeName(part.filename) || safeName(new URL(c.value).pathname) || typed('bin');
          content = () => fetchUrl(c.value, options);
          break;
        default:
          // an empty part is said, not skipped in silence
          process.stderr.write(`note: artifact ${artifact.artifactId} part ${i + 1} is empty; not saved\n`);
          return;
      }
      planned.push({
        path: join(dir, unique(name)),
        artifactId: artifact.artifactId,
        part: i + 1,
        mediaType: part.mediaType,
        content,
      });
    });
  }
  return planned;
}

export const downloadCommands: CommandGroup = (y) =>
  y.command(
    'download <id>',
    'save the task’s artifacts as files (text .txt, data .json, files by name)',
    (c) =>
      c
        .positional('id', { type: 'string', demandOption: true })
        .option('dir', {
          type: 'string',
          default: '.',
          describe: 'the directory to write to (made if absent)',
        })
        .option('force', { type: 'boolean', default: false, describe: 'overwrite files that exist' }),
    run<DownloadArgs>(async (args) => {
      const dir = resolve(args.dir);
      const { client } = await connect(args);
      const task = await client.getTask({ tenant: '', id: args.id, historyLength: undefined });
      const planned = plan(task, dir, args, (await mimeTypes()).extension);
      const existing = planned.filter((p) => existsSync(p.path)).map((p) => p.path);
      if (existing.length > 0 && !args.force)
        throw new CliError(
          'A2ACLI_ERR_USAGE',
          `${existing.join(', ')} ${existing.length === 1 ? 'exists' : 'exist'}; nothing written`,
          `${PROGRAM} task download ${args.id} --dir ${args.dir} --force (to overwrite)`,
        );
      const contents = await Promise.all(planned.map((p) => p.content()));
      if (planned.length > 0) mkdirSync(dir, { recursive: true });
      const files = planned.map((p, i) => {
        writeFileSync(p.path, contents[i]!);
        return {
          path: p.path,
          artifactId: p.artifactId,
          part: p.part,
          mediaType: p.mediaType,
          bytes: contents[i]!.byteLength,
        };
      });
      const state = stateName(task.status?.state ?? 0);
      const lines = [
        `Task: ${task.id}`,
        `Context: ${task.contextId}`,
        `State: ${state}`,
        ...files.map((f) => `Saved: ${f.path} (${f.bytes} bytes)`),
        ...(files.length === 0 ? ['Saved: nothing (the task has no artifacts)'] : []),
      ];
      print(
        args.output,
        { taskId: task.id, contextId: task.contextId, state: `TASK_STATE_${state}`, files },
        `${lines.join('\n')}\n`,
      );
    }),
  );
