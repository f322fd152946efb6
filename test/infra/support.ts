/**
 * Helpers for the CDK tests: synthesize the app in-process (real esbuild
 * bundling, into a temp cloud assembly) and read the templates.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, type CfnResource, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { type BuildAppOptions, buildApp, type HubApp } from '../../infra/build-app.ts';
import type { ServiceFunctionId } from '../../infra/synapse-hub.ts';

export interface SynthesizedHub extends HubApp {
  app: App;
  outdir: string;
  stateful: HubApp['stateful'];
  stateless: HubApp['stateless'];
  statefulTemplate: Template;
  statelessTemplate: Template;
  synthMs: number;
  cleanup: () => void;
}

export const tempDir = (prefix: string): string => mkdtempSync(join(tmpdir(), prefix));

/**
 * Builds and synthesizes the app (cdk-nag on unless told otherwise); throws on a nag violation. The
 * functions are bundled (esbuild, as deployed) only when `bundle` is set: a synth that bundles takes
 * about 5 s of CPU, one that does not under 1 s, and only the tests that read a bundle need one.
 */
export const synthHub = (
  context: Record<string, unknown> = {},
  options: BuildAppOptions = { nag: true },
  { bundle = false }: { bundle?: boolean } = {},
): SynthesizedHub => {
  const outdir = tempDir('synapse-cdk-');
  const started = performance.now();
  const app = new App({ outdir, context: bundle ? context : { 'aws:cdk:bundling-stacks': [], ...context } });
  const stacks = buildApp(app, options);
  app.synth();
  const synthMs = performance.now() - started;
  return {
    app,
    outdir,
    ...stacks,
    statefulTemplate: Template.fromStack(stacks.stateful),
    statelessTemplate: Template.fromStack(stacks.stateless),
    synthMs,
    cleanup: () => rmSync(outdir, { recursive: true, force: true }),
  };
};

export type Resource = { Type: string; Properties: Record<string, unknown> } & Record<string, unknown>;
export type Resources = Record<string, Resource>;

export const resourcesOf = (template: Template, type?: string): Resources => {
  const all = template.toJSON().Resources as Record<string, Resource>;
  return Object.fromEntries(
    Object.entries(all)
      .filter(([, r]) => type === undefined || r.Type === type)
      .map(([id, r]) => [id, { ...r, Properties: r.Properties ?? {} }]),
  );
};

export const logicalId = (construct: { node: { defaultChild?: unknown } } | CfnResource): string => {
  const cfn = ('cfnResourceType' in construct ? construct : construct.node.defaultChild) as CfnResource;
  return Stack.of(cfn).getLogicalId(cfn);
};

/** Logical ids of each function and its role in the stateless stack. */
export const functionIds = (hub: HubApp): Record<ServiceFunctionId, { fn: string; role: string }> => {
  const fns = hub.stateless.services.functions;
  return Object.fromEntries(
    Object.entries(fns).map(([name, f]) => [name, { fn: logicalId(f.function), role: logicalId(f.role) }]),
  ) as Record<ServiceFunctionId, { fn: string; role: string }>;
};

export interface Statement {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
  Condition?: unknown;
}

export const asArray = <T>(v: T | T[] | undefined): T[] =>
  v === undefined ? [] : Array.isArray(v) ? v : [v];

/** The statements of every inline policy attached to `roleId`. */
export const statementsOfRole = (template: Template, roleId: string): Statement[] =>
  Object.values(resourcesOf(template, 'AWS::IAM::Policy'))
    .filter((p) =>
      asArray(p.Properties.Roles as unknown[]).some(
        (r) => JSON.stringify(r) === JSON.stringify({ Ref: roleId }),
      ),
    )
    .flatMap((p) => (p.Properties.PolicyDocument as { Statement: Statement[] }).Statement);

export const actionsOf = (statements: Statement[]): string[] =>
  [...new Set(statements.flatMap((s) => asArray(s.Action)))].sort();

/** The properties of one resource (throws when it is missing). */
export const propertiesOf = (template: Template, id: string): Record<string, unknown> => {
  const resource = resourcesOf(template)[id];
  if (!resource) throw new Error(`no resource ${id}`);
  return resource.Properties;
};

/** The asset file of a function (`index.mjs` in the cloud assembly). */
export const bundleOf = (hub: SynthesizedHub, fnLogicalId: string): string => {
  return readBundle(hub.outdir, propertiesOf(hub.statelessTemplate, fnLogicalId));
};

/** `index.mjs` of a function's asset in a cloud assembly, from the function's properties. */
export const readBundle = (outdir: string, fnProperties: Record<string, unknown>): string => {
  const hash = (fnProperties.Code as { S3Key: string }).S3Key.replace(/\.zip$/, '');
  return readFileSync(join(outdir, `asset.${hash}`, 'index.mjs'), 'utf8');
};

/** Full path of an API Gateway resource, from its ParentId chain. */
export const resourcePath = (resources: Resources, id: string): string => {
  const r = resources[id];
  if (!r) return '';
  const parent = r.Properties.ParentId as { Ref?: string } | undefined;
  const prefix = parent?.Ref ? resourcePath(resources, parent.Ref) : '';
  return `${prefix}/${String(r.Properties.PathPart)}`;
};
