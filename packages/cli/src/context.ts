/**
 * What every command is given: the settings, the streams, a client made on first use (so `--help`
 * and bad flags need no API), and the signal that Ctrl-C aborts.
 */
import { createSwitchyardClient, type SwitchyardClient } from '@switchyard/client';
import type { CliEnv } from './env.js';
import type { Streams } from './output.js';

export interface CliContext extends Streams {
  env: CliEnv;
  signal: AbortSignal;
  /** The client, made with `--url` when given (else SWITCHYARD_URL). */
  client(): SwitchyardClient;
  /** The URL commands talk to. */
  url(): string;
  /** Set by a command whose outcome is not success (see EXIT). */
  exitCode: number;
}

export function createContext(options: { env: CliEnv; streams: Streams; signal: AbortSignal; urlOption: () => string | undefined }): CliContext {
  let client: SwitchyardClient | undefined;
  const url = () => options.urlOption() ?? options.env.url;
  return {
    ...options.streams,
    env: options.env,
    signal: options.signal,
    exitCode: 0,
    url,
    client() {
      client ??= createSwitchyardClient({ url: url(), key: options.env.key?.value, timeoutMs: options.env.timeoutMs });
      return client;
    },
  };
}
