// One JSON line per event for the API and the worker (pino), or readable lines when a person watches a
// terminal. Lines logged while a request is handled carry its request_id (and user_id once known). No
// line carries a secret: fields named like one are redacted (to three levels deep), and the message
// is scrubbed of query strings, credentials and the secrets the process knows.
import { AsyncLocalStorage } from 'node:async_hooks';
import { trace } from '@opentelemetry/api';
import pino, { type DestinationStream, type Logger, type LoggerOptions } from 'pino';
import { scrubbed } from './known-secrets';

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

/** Fields whose value is a secret wherever they appear in a line (a headers object, a connection's settings). */
export const SECRET_FIELDS = [
  'authorization',
  'Authorization',
  'proxy-authorization',
  'cookie',
  'Cookie',
  'set-cookie',
  'x-api-key',
  'api_key',
  'apiKey',
  'password',
  'secret',
  'notify_secret',
  'client_secret',
  'token',
  'access_token',
  'refresh_token',
  'private_key',
  'webhook-signature',
] as const;

/** pino's redact paths for SECRET_FIELDS: the field itself, one and two levels down. */
export function secretPaths(): string[] {
  return SECRET_FIELDS.flatMap((field) => {
    const key = /^[A-Za-z_$][\w$]*$/.test(field) ? field : `["${field}"]`;
    const below = key.startsWith('[') ? key : `.${key}`;
    return [key, `*${below}`, `*.*${below}`];
  });
}

export function createLogger(service: 'api' | 'worker', settings: LogSettings, destination?: DestinationStream): Logger {
  const options: LoggerOptions = {
    level: settings.level,
    base: { service },
    messageKey: 'msg',
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    redact: { paths: secretPaths(), censor: '[redacted]' },
    hooks: {
      logMethod(args, write) {
        write.apply(this, args.map((arg) => (typeof arg === 'string' ? scrubbed(arg) : arg)) as Parameters<typeof write>);
      },
    },
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
