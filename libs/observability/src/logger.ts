// One JSON line per event for the API and the worker (pino), or readable lines when a person watches a
// terminal. Lines logged while a request is handled carry its request_id (and user_id once known).
import { AsyncLocalStorage } from 'node:async_hooks';
import { trace } from '@opentelemetry/api';
import pino, { type DestinationStream, type Logger, type LoggerOptions } from 'pino';

export type { Logger };

export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export type LogFormat = 'json' | 'pretty' | 'auto';

export interface LogSettings {
  level: LogLevel;
  /** auto: pretty when stdout is a terminal, JSON otherwise. */
  format: LogFormat;
}

/** The request a line belongs to: set by the API's request middleware, read by every line logged meanwhile. */
export const logContext = new AsyncLocalStorage<Record<string, string>>();

export function createLogger(service: 'api' | 'worker', settings: LogSettings, destination?: DestinationStream): Logger {
  const options: LoggerOptions = {
    level: settings.level,
    base: { service },
    messageKey: 'msg',
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    mixin: () => {
      const span = trace.getActiveSpan();
      const fields = logContext.getStore() ?? {};
      return span ? { ...fields, trace_id: span.spanContext().traceId } : fields;
    },
  };
  const pretty = settings.format === 'pretty' || (settings.format === 'auto' && !destination && process.stdout.isTTY);
  if (pretty) return pino(options, prettyStream());
  return pino(options, destination ?? pino.destination({ dest: 1, sync: false }));
}

function prettyStream(): DestinationStream {
  // Loaded only when asked for: production images log JSON.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const pinoPretty = require('pino-pretty') as (options: object) => DestinationStream;
  return pinoPretty({ colorize: true, sync: true, ignore: 'pid,hostname,service', translateTime: 'SYS:HH:MM:ss.l' });
}
