/**
 * Structured JSON logs (pino) for every service. Tests pass level "silent".
 */
import { pino, type Logger, type LevelWithSilent } from 'pino';

export type { Logger };

/**
 * @param options.name the service or component, added to every line
 * @param options.level minimum level (default "info")
 * @param options.stream where lines go (default "stdout"; a stdio MCP server keeps stdout for the protocol)
 */
export function createLogger(options: { name: string; level?: LevelWithSilent; stream?: 'stdout' | 'stderr' }): Logger {
  const base = { level: options.level ?? 'info', base: { service: options.name } };
  return options.stream === 'stderr' ? pino(base, pino.destination(2)) : pino(base);
}

export const LogLevel = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
