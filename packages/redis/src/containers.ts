/**
 * Redis from containers, through testcontainers, for tests on a machine with Docker and no
 * redis-server (`SWITCHYARD_TEST_REDIS=container` or `container-cluster`): the compose file's
 * Redis image, one server with its port published on loopback, or three cluster-mode masters on
 * the host's network (a cluster's nodes announce their own addresses, which only the host's
 * network makes the same inside and out) joined by the first one's redis-cli.
 *
 * testcontainers is a development dependency, loaded only here and only when asked for.
 * Its reaper (Ryuk) is off unless TESTCONTAINERS_RYUK_DISABLED says otherwise: its image comes
 * from a registry some machines cannot reach, and each handle stops its own containers.
 */
import type { StartedTestContainer } from 'testcontainers';
import { clusterUrl } from './cluster-url.js';
import { waitForClusterOk } from './local-cluster.js';
import { freePort } from './free-port.js';

/** The image the compose file runs Redis from. */
export const REDIS_IMAGE = 'redis:7-alpine';
/** Every container started here carries this label, so that one a killed process left can be found. */
export const TEST_CONTAINER_LABEL = 'dev.switchyard.test';

export interface ContainerRedis {
  url: string;
  owned: true;
  /** The containers' ids, in the order they were started. */
  containers: string[];
  stop(): Promise<void>;
}

async function load() {
  // eslint-disable-next-line no-restricted-properties -- testcontainers reads its own settings from the environment
  process.env.TESTCONTAINERS_RYUK_DISABLED ??= 'true';
  return import('testcontainers');
}

const EPHEMERAL = ['--save', '', '--appendonly', 'no'];

/** One Redis in a container, its port published on loopback. */
export async function startContainerRedis(image = REDIS_IMAGE): Promise<ContainerRedis> {
  const { GenericContainer, Wait } = await load();
  const container = await new GenericContainer(image)
    .withCommand(['redis-server', ...EPHEMERAL])
    .withExposedPorts(6379)
    .withLabels({ [TEST_CONTAINER_LABEL]: 'redis' })
    .withWaitStrategy(Wait.forLogMessage(/Ready to accept connections/))
    .start();
  return {
    url: `redis://127.0.0.1:${container.getMappedPort(6379)}`,
    owned: true,
    containers: [container.getId()],
    stop: () => stopAll([container]),
  };
}

/** A Redis Cluster of `masters` containers (default 3) on the host's network, ready once every slot is served. */
export async function startContainerCluster(image = REDIS_IMAGE, masters = 3): Promise<ContainerRedis> {
  const { GenericContainer, Wait } = await load();
  const started: StartedTestContainer[] = [];
  const nodes: string[] = [];
  try {
    for (let i = 0; i < masters; i++) {
      const port = await freePort();
      let busPort = await freePort();
      while (busPort === port) busPort = await freePort();
      const command = ['redis-server', '--port', String(port), '--cluster-port', String(busPort), '--bind', '127.0.0.1', '--cluster-enabled', 'yes', '--cluster-config-file', `/tmp/nodes-${port}.conf`, '--cluster-node-timeout', '5000', ...EPHEMERAL];
      const container = new GenericContainer(image)
        .withNetworkMode('host')
        .withCommand(command)
        .withLabels({ [TEST_CONTAINER_LABEL]: 'redis-cluster' })
        .withWaitStrategy(Wait.forLogMessage(/Ready to accept connections/));
      started.push(await container.start());
      nodes.push(`127.0.0.1:${port}`);
    }
    const created = await (started[0] as StartedTestContainer).exec(['redis-cli', '--cluster', 'create', ...nodes, '--cluster-replicas', '0', '--cluster-yes']);
    if (created.exitCode !== 0) throw new Error(`redis-cli --cluster create failed: ${created.output}`);
    await waitForClusterOk(nodes, 60_000);
  } catch (error) {
    await stopAll(started);
    throw error;
  }
  return { url: clusterUrl(nodes), owned: true, containers: started.map((c) => c.getId()), stop: () => stopAll(started) };
}

async function stopAll(containers: StartedTestContainer[]): Promise<void> {
  await Promise.all(containers.map((container) => container.stop({ timeout: 1_000 }).catch(() => undefined)));
}
