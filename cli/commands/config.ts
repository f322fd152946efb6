/**
 * `synapse config show` (a2a-cli SPEC §5.1, §6.4): read-only, every effective setting with its value and
 * where it came from (flag, env, local, agent, global or default), and the files consulted. Credentials
 * are shown as `[redacted]`. Configuration is changed by editing the files or the environment, never here.
 */
import { type CommandGroup, print, run } from '../command.ts';
import { currentLayers, currentSettings, type Setting } from '../config.ts';
import { REDACTED } from '../debug.ts';

const shown = (s: Setting): unknown =>
  s.secret && s.value !== undefined && s.value !== '' ? REDACTED : s.value;

const textOf = (v: unknown): string =>
  v === undefined
    ? '(unset)'
    : Array.isArray(v)
      ? v.join(' ')
      : typeof v === 'string'
        ? v
        : JSON.stringify(v);

export const configCommands: CommandGroup = (y) =>
  y
    .option('config', {
      type: 'string',
      describe: 'a .env file read in place of the local .env (or A2ACLI_CONFIG)',
    })
    .command('config', 'the configuration in effect (read-only)', (c) =>
      c
        .command(
          'show',
          'every setting, its value and its source',
          (g) => g,
          run(async (args) => {
            const layers = currentLayers();
            const settings = [...currentSettings()].sort((a, b) => a.option.localeCompare(b.option));
            const files = (layers?.files ?? []).map((f) => ({
              source: f.source,
              path: f.path,
              found: f.found,
            }));
            const json = {
              configDir: layers?.dir ?? null,
              files,
              settings: settings.map((s) => ({
                name: s.option,
                env: s.env,
                value: shown(s) ?? null,
                source: s.source,
                ...(s.file ? { file: s.file } : {}),
              })),
            };
            const text = [
              `Config dir: ${json.configDir ?? '(none)'}`,
              ...files.map((f) => `File ${f.source}: ${f.path}${f.found ? '' : ' (absent)'}`),
              ...settings.map(
                (s) => `Setting ${s.option}: ${textOf(shown(s))} (${s.source}${s.file ? ` ${s.file}` : ''})`,
              ),
            ].join('\n');
            print(args.output, json, `${text}\n`);
          }),
        )
        .demandCommand(1, 'name a config command: show'),
    );
