/**
 * Structured JSON logs (pino) for every service. Tests pass level "silent".
 */
import { pino, type Logger, type LevelWithSilent } from 'pino';

export type { Logger };

/**
 * @param options.name the service or component, added to every line
 * @param options.level minimum level (default "info")
 */
export function createLogger(options: { name: string; level?: LevelWithSilent }): Logger {
  return pino({ level: options.level ?? 'info', base: { service: options.name } });
}

export const LogLevel = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
