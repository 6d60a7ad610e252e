/**
 * The Kubernetes manifests docs/OPERATIONS.md shows: valid against Kubernetes' own schemas
 * (kubernetes-models: the API's OpenAPI schemas compiled, no network), and true to the services:
 * each container runs a service's compiled main, probes /livez and /readyz on the port that
 * service serves them on, sets only variables some service reads, and a worker's pod waits
 * longer than its shutdown grace.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { ConfigMap, PersistentVolumeClaim, Secret, Service } from 'kubernetes-models/v1';
import { Deployment } from 'kubernetes-models/apps/v1';
import { REPO_ROOT } from '@switchyard/redis';
import { SERVICE_VARIABLES } from './launcher/service-env.js';

interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string };
  [field: string]: unknown;
}

/** The documents of the OPERATIONS.md yaml blocks that hold Kubernetes objects. */
function documentedManifests(): Manifest[] {
  const text = readFileSync(`${REPO_ROOT}docs/OPERATIONS.md`, 'utf8');
  const blocks = [...text.matchAll(/^```yaml\n([\s\S]*?)^```$/gm)].map((m) => m[1] ?? '').filter((block) => /^apiVersion:/m.test(block));
  return blocks.flatMap((block) =>
    parseAllDocuments(block).map((doc) => {
      assert.deepEqual(doc.errors, [], 'the block is valid YAML');
      return doc.toJSON() as Manifest;
    }),
  );
}

const MODELS: Record<string, new (data: never) => { validate(): void }> = {
  'v1/Secret': Secret,
  'v1/ConfigMap': ConfigMap,
  'v1/PersistentVolumeClaim': PersistentVolumeClaim,
  'v1/Service': Service,
  'apps/v1/Deployment': Deployment,
};

interface Probe {
  httpGet?: { path: string; port: number };
}
interface Container {
  command: string[];
  env?: { name: string; value?: string }[];
  livenessProbe?: Probe;
  readinessProbe?: Probe;
}
interface DeploymentShape {
  metadata: { name: string };
  spec: { template: { spec: { containers: Container[]; terminationGracePeriodSeconds?: number; securityContext?: { runAsNonRoot?: boolean } } } };
}

const manifests = documentedManifests();
const deployments = manifests.filter((m) => m.kind === 'Deployment') as unknown as DeploymentShape[];

test('every documented manifest is valid against the Kubernetes schema of its kind', () => {
  assert.ok(manifests.length >= 8, `found ${manifests.length}`);
  for (const manifest of manifests) {
    const Model = MODELS[`${manifest.apiVersion}/${manifest.kind}`];
    assert.ok(Model, `no schema checked for ${manifest.apiVersion} ${manifest.kind}`);
    assert.doesNotThrow(() => new Model(manifest as never).validate(), `${manifest.kind} ${manifest.metadata.name}`);
  }
});

test('the schema check refuses a manifest Kubernetes would refuse', () => {
  const broken = structuredClone(deployments[0]) as unknown as Record<string, unknown>;
  ((broken as unknown as DeploymentShape).spec.template.spec.containers[0] as unknown as { ports: unknown }).ports = [{ containerPort: 'http' }];
  assert.throws(() => new Deployment(broken as never).validate(), /containerPort/);
});

test('the orchestrator, the workers and the bridge each run their compiled main, as non-root, probed on the port that serves /livez and /readyz', () => {
  const ports: Record<string, (env: Map<string, string>) => string | undefined> = {
    orchestrator: (env) => env.get('PORT'),
    'mcp-bridge': (env) => env.get('PORT'),
    workers: (env) => env.get('METRICS_PORT'),
  };
  assert.deepEqual(deployments.map((d) => d.metadata.name).sort(), Object.keys(ports).sort());
  for (const deployment of deployments) {
    const name = deployment.metadata.name;
    const pod = deployment.spec.template.spec;
    assert.equal(pod.securityContext?.runAsNonRoot, true, name);
    const container = pod.containers[0] as Container;
    assert.deepEqual(container.command, ['node', `services/${name}/dist/main.js`]);
    const env = new Map((container.env ?? []).map((e) => [e.name, e.value ?? '']));
    const port = Number(ports[name]?.(env));
    assert.ok(port > 0, `${name} sets its port`);
    assert.deepEqual(container.livenessProbe?.httpGet, { path: '/livez', port }, `${name} liveness`);
    assert.deepEqual(container.readinessProbe?.httpGet, { path: '/readyz', port }, `${name} readiness`);
    if (name !== 'workers') assert.equal(env.get('HOST'), '0.0.0.0', `${name} listens beyond loopback`);
  }
});

test("a worker's pod waits longer than the worker's shutdown grace, so a stopped worker finishes its stages", () => {
  const workers = deployments.find((d) => d.metadata.name === 'workers') as DeploymentShape;
  const env = new Map((workers.spec.template.spec.containers[0]?.env ?? []).map((e) => [e.name, e.value ?? '']));
  const graceMs = Number(env.get('SHUTDOWN_GRACE_MS') ?? 25_000);
  assert.ok((workers.spec.template.spec.terminationGracePeriodSeconds ?? 30) * 1000 > graceMs + 5_000);
});

test('every variable the manifests set is one some service reads', () => {
  const set = [
    ...deployments.flatMap((d) => d.spec.template.spec.containers.flatMap((c) => (c.env ?? []).map((e) => e.name))),
    ...manifests.filter((m) => m.kind === 'ConfigMap').flatMap((m) => Object.keys(m.data as object)),
    ...manifests.filter((m) => m.kind === 'Secret').flatMap((m) => Object.keys(m.stringData as object)),
  ];
  assert.deepEqual(set.filter((name) => !SERVICE_VARIABLES.has(name)), []);
});
