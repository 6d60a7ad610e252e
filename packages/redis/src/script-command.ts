/**
 * A Lua script as an ioredis command (defineCommand), so that a hot path does not ship and hash
 * the script's text on every call: ioredis sends it as EVAL the first time on each socket and as
 * EVALSHA after that (a reconnect is a new socket, so the text goes first again, which keeps the
 * order of the commands on that connection), and sends it again by itself when a server answers
 * NOSCRIPT (after SCRIPT FLUSH, a restart or a failover). The same on a Cluster: each node's
 * socket is told the text once.
 *
 * Not for a script inside MULTI: a NOSCRIPT there fails inside the EXEC, and ioredis sends the
 * script again outside the transaction and its WATCH.
 */
import type { Redis } from 'ioredis';

export type ScriptArg = string | number | Buffer;

/** A script bound to its connection; `command` is the name it was defined under. */
export type ScriptCommand<T = unknown> = ((...args: ScriptArg[]) => Promise<T>) & { readonly command: string };

export interface ScriptCommandOptions {
  /** The number of keys every call passes first; when absent, each call passes the count as its first argument. */
  numberOfKeys?: number;
  /** Answer bulk strings as Buffers (ioredis's `<name>Buffer`). Default false. */
  buffers?: boolean;
}

/** What ioredis keeps of each command a connection defined (Commander's scriptsSet). */
interface DefinedScript {
  lua: string;
  numberOfKeys: number | null;
}

type Commands = Record<string, ((...args: ScriptArg[]) => Promise<unknown>) | undefined>;

/** The bound commands made per connection, so that a caller asking on every call gets the same one. */
const boundOf = new WeakMap<Redis, Map<string, ScriptCommand>>();

/**
 * `lua` as command `name` on `redis` (a Redis or a Cluster), defined the first time a connection
 * is asked for it and reused after that. Throws when `name` is already something else on that
 * connection: another script, or another key count, or a command of ioredis's own.
 */
export function scriptCommand<T = unknown>(redis: Redis, name: string, lua: string, options: ScriptCommandOptions = {}): ScriptCommand<T> {
  const numberOfKeys = options.numberOfKeys ?? null;
  const defined = (redis as unknown as { scriptsSet: Partial<Record<string, DefinedScript>> }).scriptsSet[name];
  const commands = redis as unknown as Commands;
  if (!defined) {
    if (commands[name] !== undefined) throw new Error(`${name} is a command of the Redis client already, not a script`);
    redis.defineCommand(name, numberOfKeys === null ? { lua } : { lua, numberOfKeys });
  } else if (defined.lua !== lua || defined.numberOfKeys !== numberOfKeys) {
    throw new Error(`script command ${name} is defined with another script on this connection`);
  }
  const method = options.buffers ? `${name}Buffer` : name;
  let bound = boundOf.get(redis);
  if (!bound) boundOf.set(redis, (bound = new Map()));
  let made = bound.get(method);
  if (!made) {
    const command = commands[method];
    if (!command) throw new Error(`script command ${name} was not defined`);
    bound.set(method, (made = Object.assign(command.bind(redis), { command: method })));
  }
  return made as ScriptCommand<T>;
}
