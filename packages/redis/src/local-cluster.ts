/**
 * A local Redis Cluster for tests and the bench: three `redis-server --cluster-enabled yes`
 * masters on free loopback ports, each in a temporary directory of its own, joined with
 * `redis-cli --cluster create` (no replicas) and ready once every node reports `cluster_state:ok`.
 * No Docker: the same redis-server the single-node set-up uses.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { freePort } from './free-port.js';
import { pingRedis, stopChild } from './local-server.js';
import { clusterUrl } from './cluster-url.js';

export interface LocalCluster {
  /** `redis-cluster://127.0.0.1:p1,127.0.0.1:p2,127.0.0.1:p3`: what REDIS_URL takes for a cluster. */
  url: string;
  /** The masters' `host:port`, in the order they were started. */
  nodes: string[];
  owned: true;
  stop(): Promise<void>;
}

export interface StartLocalClusterOptions {
  /** Path of redis-server; redis-cli is looked for beside it. */
  binary: string;
  /** How many masters (default 3, the fewest `redis-cli --cluster create` accepts). */
  masters?: number;
  /**
   * How long to wait for `cluster_state:ok` (default 60 s: on a loaded machine the nodes' gossip
   * can take well over the usual second or two; a cluster that is ok sooner is used at once).
   */
  readyTimeoutMs?: number;
}

function spawnNode(options: { binary: string; port: number; busPort: number; dir: string }): ChildProcess {
  const args = [
    '--port', String(options.port),
    // The bus port is chosen too: the default (port + 10000) may be taken, or past 65535.
    '--cluster-port', String(options.busPort),
    '--cluster-enabled', 'yes',
    '--cluster-config-file', path.join(options.dir, 'nodes.conf'),
    '--cluster-node-timeout', '5000',
    '--bind', '127.0.0.1',
    '--dir', options.dir,
    '--appendonly', 'no',
    '--save', '',
    '--daemonize', 'no',
    '--logfile', path.join(options.dir, 'redis.log'),
  ];
  const child = spawn(options.binary, args, { stdio: 'ignore' });
  child.unref();
  return child;
}

/** Waits until `check` holds; on timeout the error ends with what `explain` says of the last look. */
async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs: number, explain?: () => Promise<string>): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (await check()) return;
    await sleep(100);
  }
  const seen = explain ? `; last seen: ${await explain()}` : '';
  throw new Error(`local cluster: ${what} not within ${timeoutMs} ms${seen}`);
}

/** The node's CLUSTER INFO, or why it could not be read. */
async function clusterInfo(url: string): Promise<string> {
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return (await client.call('CLUSTER', 'INFO')) as string;
  } catch (error) {
    return `unreadable: ${error instanceof Error ? error.message : String(error)}`;
  } finally {
    client.disconnect();
  }
}

/** True when the node says the cluster is ok and it knows every master. */
const clusterOk = (info: string, masters: number) => /cluster_state:ok/.test(info) && new RegExp(`cluster_known_nodes:${masters}\\b`).test(info);

/** Each node's state, known nodes and assigned slots: what a cluster that is not ok shows. */
async function describeNodes(nodes: readonly string[]): Promise<string> {
  const infos = await Promise.all(nodes.map((node) => clusterInfo(`redis://${node}`)));
  const field = (info: string, name: string) => new RegExp(`${name}:(\\S+)`).exec(info)?.[1] ?? '?';
  return nodes.map((node, i) => {
    const info = infos[i] ?? '';
    return info.startsWith('unreadable') ? `${node} ${info}` : `${node} state ${field(info, 'cluster_state')}, knows ${field(info, 'cluster_known_nodes')}, slots ok ${field(info, 'cluster_slots_ok')}`;
  }).join('; ');
}

/** Waits until every one of `nodes` (`host:port` of the masters) says the cluster is ok and knows them all. */
export async function waitForClusterOk(nodes: readonly string[], timeoutMs: number): Promise<void> {
  const ok = async () => (await Promise.all(nodes.map((node) => clusterInfo(`redis://${node}`)))).every((info) => clusterOk(info, nodes.length));
  await waitFor('cluster_state:ok on every node', ok, timeoutMs, () => describeNodes(nodes));
}

/** Starts `masters` cluster nodes, joins them, and waits until the cluster serves every slot. */
export async function startLocalCluster(options: StartLocalClusterOptions): Promise<LocalCluster> {
  const masters = options.masters ?? 3;
  const cli = path.join(path.dirname(options.binary), 'redis-cli');
  const dirs: string[] = [];
  const children: ChildProcess[] = [];
  const nodes: string[] = [];
  const stop = async () => {
    process.removeListener('exit', killAll);
    await Promise.all(children.map(stopChild));
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  };
  const killAll = () => children.forEach((child) => child.kill('SIGKILL'));
  process.once('exit', killAll);
  try {
    for (let i = 0; i < masters; i++) {
      const dir = mkdtempSync(path.join(os.tmpdir(), 'switchyard-cluster-'));
      dirs.push(dir);
      const port = await freePort();
      let busPort = await freePort();
      while (busPort === port) busPort = await freePort();
      children.push(spawnNode({ binary: options.binary, port, busPort, dir }));
      nodes.push(`127.0.0.1:${port}`);
    }
    await waitFor('every node answering PING', async () => (await Promise.all(nodes.map((node) => pingRedis(`redis://${node}`, 500)))).every(Boolean), 10_000);
    const created = spawnSync(cli, ['--cluster', 'create', ...nodes, '--cluster-replicas', '0', '--cluster-yes'], { encoding: 'utf8', timeout: 30_000 });
    if (created.status !== 0) throw new Error(`redis-cli --cluster create failed: ${created.stderr || created.stdout}`);
    await waitForClusterOk(nodes, options.readyTimeoutMs ?? 60_000);
  } catch (error) {
    await stop();
    throw error;
  }
  return { url: clusterUrl(nodes), nodes, owned: true, stop };
}
