// Nest's own logging (start-up, the exception filter, services' Logger) through pino.
import type { LoggerService } from '@nestjs/common';
import type { Logger } from './logger';

type Fields = Record<string, unknown>;

/** Nest's start-up chatter (modules loaded, every route mapped): debug, not info. */
const START_UP_CONTEXTS = new Set(['InstanceLoader', 'RoutesResolver', 'RouterExplorer', 'NestFactory', 'NestApplication']);

export class PinoNestLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}

  log(message: unknown, context?: string) {
    this.write(context && START_UP_CONTEXTS.has(context) ? 'debug' : 'info', message, context);
  }
  error(message: unknown, ...rest: unknown[]) {
    // Nest passes (message, stack?, context?)
    const context = typeof rest[rest.length - 1] === 'string' ? (rest[rest.length - 1] as string) : undefined;
    const stack = rest.length > 1 && typeof rest[0] === 'string' ? rest[0] : undefined;
    this.write('error', message, context, stack ? { stack } : {});
  }
  warn(message: unknown, context?: string) {
    this.write('warn', message, context);
  }
  debug(message: unknown, context?: string) {
    this.write('debug', message, context);
  }
  verbose(message: unknown, context?: string) {
    this.write('trace', message, context);
  }

  private write(level: 'trace' | 'debug' | 'info' | 'warn' | 'error', message: unknown, context?: string, extra: Fields = {}) {
    const fields: Fields = { ...(context ? { context } : {}), ...extra };
    // A service may log an object: its `msg` is the message, the rest are fields.
    if (message && typeof message === 'object' && !(message instanceof Error)) {
      const { msg, ...rest } = message as Fields;
      this.logger[level]({ ...fields, ...rest }, String(msg ?? ''));
    } else {
      this.logger[level](fields, message instanceof Error ? message.message : String(message));
    }
  }
}
