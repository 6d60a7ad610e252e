/**
 * `switchyard pipelines apply -f FILE | ls | show NAME | delete NAME`.
 */
import { Command } from 'commander';
import { stringify as yamlText } from 'yaml';
import type { CliContext } from '../context.js';
import { InputError } from '../errors.js';
import { readDefinitionFile } from '../input.js';
import { printJson, shortTime, table } from '../output.js';
import { positiveInt } from './options.js';

export function pipelinesCommand(ctx: CliContext): Command {
  const pipelines = new Command('pipelines').description('register, list, read and delete pipeline definitions');

  pipelines
    .command('apply')
    .description('register a definition (YAML or JSON) as a new version; the same definition again is "unchanged"')
    .requiredOption('-f, --file <file>', 'the definition file (.yaml, .yml or .json)')
    .option('--name <name>', "the pipeline's name (default: the file's `name`)")
    .option('--json', 'print the API answer as JSON')
    .action(async (opts: { file: string; name?: string; json?: boolean }) => {
      const definition = readDefinitionFile(opts.file, ctx.env.maxFileBytes);
      const name = opts.name ?? definition.name;
      if (!name) throw new InputError(`${opts.file}: no \`name\` in the definition; give --name`);
      const registered = await ctx.client().registerPipeline(name, { text: definition.text, format: definition.format });
      if (opts.json) return printJson(ctx, registered);
      ctx.out.write(`${registered.name}: version ${registered.version} (${registered.outcome})\n`);
    });

  pipelines
    .command('ls')
    .alias('list')
    .description('list the pipelines, with their latest version')
    .option('--json', 'print the API answer as JSON')
    .action(async (opts: { json?: boolean }) => {
      const list = await ctx.client().listPipelines();
      if (opts.json) return printJson(ctx, list);
      ctx.out.write(`${table(['NAME', 'LATEST', 'REGISTERED', 'DESCRIPTION'], list.pipelines.map((p) => [p.name, String(p.latest), shortTime(p.registered_at), p.description]))}\n`);
    });

  pipelines
    .command('show')
    .description("print a pipeline's definition (its latest version, or --version), as YAML")
    .argument('<name>', "the pipeline's name")
    .option('--version <n>', 'one version', positiveInt('--version'))
    .option('--json', 'print the API answer (every version) as JSON')
    .action(async (name: string, opts: { version?: number; json?: boolean }) => {
      const view = await ctx.client().getPipeline(name);
      if (opts.json) return printJson(ctx, view);
      const version = opts.version ?? view.latest;
      const found = view.versions.find((v) => v.version === version);
      if (!found) throw new InputError(`pipeline ${name} has no version ${version} (versions: ${view.versions.map((v) => v.version).join(', ')})`);
      ctx.err.write(`# ${name} version ${version} of ${view.versions.length}, registered ${shortTime(found.registered_at)}\n`);
      ctx.out.write(yamlText(found.definition, { lineWidth: 0 }));
    });

  pipelines
    .command('delete')
    .description('delete a pipeline, every version (runs already started go on)')
    .argument('<name>', "the pipeline's name")
    .option('--json', 'print the API answer as JSON')
    .action(async (name: string, opts: { json?: boolean }) => {
      const deleted = await ctx.client().deletePipeline(name);
      if (opts.json) return printJson(ctx, deleted);
      ctx.out.write(`${name}: deleted\n`);
    });

  return pipelines;
}
