// The Temporal SDK's logger (worker, activities, workflows through the SDK's sink, and the native core
// when forwarded) written through ours, with the run's uuid taken from the workflow id.
import type { Logger as TemporalLogger, LogLevel as TemporalLevel, LogMetadata } from '@temporalio/common';
import { errorFields } from './error-fields';
import { scrubbed } from './known-secrets';
import type { Logger } from './logger';

const LEVEL = { TRACE: 'trace', DEBUG: 'debug', INFO: 'info', WARN: 'warn', ERROR: 'error' } as const;
const RUN_WORKFLOW_ID = /^run-([0-9a-f-]{36})$/;

/** snake_case fields for what the SDK names in camelCase, plus run_uuid for our runs. */
export function temporalFields(meta: LogMetadata = {}): Record<string, unknown> {
  const { error, failure, workflowId, activityType, workflowType, attempt, sdkComponent, taskQueue, ...rest } = meta as Record<
    string,
    unknown
  >;
  const fields: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(rest)) if (typeof key === 'string' && value !== undefined) fields[snake(key)] = value;
  const run = typeof workflowId === 'string' ? RUN_WORKFLOW_ID.exec(workflowId) : null;
  return {
    ...fields,
    ...(workflowId !== undefined ? { workflow_id: workflowId } : {}),
    ...(run ? { run_uuid: run[1] } : {}),
    ...(activityType !== undefined ? { activity_type: activityType } : {}),
    ...(workflowType !== undefined ? { workflow_type: workflowType } : {}),
    ...(attempt !== undefined ? { attempt } : {}),
    ...(taskQueue !== undefined ? { task_queue: taskQueue } : {}),
    ...(sdkComponent !== undefined ? { component: sdkComponent } : {}),
    ...(error !== undefined ? { error: errorFields(error) } : {}),
    ...(failure !== undefined ? { failure: typeof failure === 'string' ? scrubbed(failure.split('\n')[0]) : failure } : {}),
  };
}

export function temporalLogger(logger: Logger): TemporalLogger {
  const write = (level: TemporalLevel, message: string, meta?: LogMetadata) => logger[LEVEL[level]](temporalFields(meta), message);
  return {
    log: write,
    trace: (message, meta) => write('TRACE', message, meta),
    debug: (message, meta) => write('DEBUG', message, meta),
    info: (message, meta) => write('INFO', message, meta),
    warn: (message, meta) => write('WARN', message, meta),
    error: (message, meta) => write('ERROR', message, meta),
  };
}

function snake(key: string): string {
  return key.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}
