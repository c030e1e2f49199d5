// POST /workflows/{uuid}/schedules and PATCH /schedules/{id}: the schedule as the user asks for it.
import { DomainError, ErrorCode } from '../errors';
import { assertStorableJson } from '../outputs/json-depth';
import { requestBody } from '../request-body';
import { CronProblem, readCron, type CronTiming } from './cron-timing';
import { smallestGapSeconds } from './fire-gap';

export const SCHEDULE_TYPES = ['immediate', 'scheduled', 'recurring'] as const;
export const OVERLAPS = ['skip', 'buffer_one', 'buffer_all', 'cancel_other', 'terminate_other', 'allow_all'] as const;

export interface ScheduleInput {
  schedule_type: (typeof SCHEDULE_TYPES)[number];
  run_at?: Date;
  cron_expression?: string;
  interval_seconds?: number;
  timezone?: string;
  start_at?: Date;
  end_at?: Date;
  trigger_output: unknown;
  overlap: (typeof OVERLAPS)[number];
  catchup_window_seconds?: number;
  pause_on_failure: boolean;
  note?: string;
}

export type ScheduleTimingPatch = Pick<ScheduleInput, 'cron_expression' | 'interval_seconds' | 'timezone'>;

const TIMING = {
  cron_expression: { type: 'string', minLength: 1, maxLength: 200 },
  interval_seconds: { type: 'integer', minimum: 1, maximum: 31_536_000 },
  timezone: { type: 'string', minLength: 1, maxLength: 100 },
};

/** The body of POST /workflows/{uuid}/schedules (the MCP tool schedule_workflow offers it too). */
export const SCHEDULE_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['schedule_type'],
  properties: {
    schedule_type: { enum: SCHEDULE_TYPES },
    run_at: { type: 'string', format: 'date-time' },
    ...TIMING,
    start_at: { type: 'string', format: 'date-time' },
    end_at: { type: 'string', format: 'date-time' },
    trigger_output: {},
    overlap: { enum: OVERLAPS },
    catchup_window_seconds: { type: 'integer', minimum: 1, maximum: 31_536_000 },
    pause_on_failure: { type: 'boolean' },
    note: { type: 'string', maxLength: 2000 },
  },
};

export const SCHEDULE_PATCH_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: { ...TIMING, paused: { type: 'boolean' }, note: { type: 'string', maxLength: 2000 } },
};

export const SCHEDULE_BODY = requestBody('NewSchedule', SCHEDULE_SCHEMA);
export const SCHEDULE_PATCH_BODY = requestBody(
  'SchedulePatch',
  SCHEDULE_PATCH_SCHEMA,
  (body) => body as ScheduleTimingPatch & { paused?: boolean; note?: string },
);
/** POST /schedules/{id}/backfill */
export const BACKFILL_BODY = requestBody(
  'Backfill',
  {
    type: 'object',
    additionalProperties: false,
    required: ['start', 'end'],
    properties: { start: { type: 'string', format: 'date-time' }, end: { type: 'string', format: 'date-time' } },
  },
  (body) => body as { start: string; end: string },
);

const fail = (field: string, message: string): never => {
  throw new DomainError(ErrorCode.ValidationFailed, `${field} ${message}`, { field });
};

/** The timing a cron_expression gives Temporal, or a 422 naming the field with what is wrong. */
function cronTiming(expression: string): CronTiming {
  try {
    return readCron(expression);
  } catch (error) {
    if (error instanceof CronProblem) return fail('cron_expression', error.message);
    throw error;
  }
}

export function isTimezone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

function checkTiming(timing: ScheduleTimingPatch): void {
  if (timing.cron_expression !== undefined) cronTiming(timing.cron_expression);
  if (timing.timezone !== undefined && !isTimezone(timing.timezone)) fail('timezone', `is not a known IANA time zone: ${timing.timezone}`);
}

export function parseScheduleInput(input: unknown, now: Date): ScheduleInput {
  const body = SCHEDULE_BODY.parse(input);
  const date = (field: string) => (typeof body[field] === 'string' ? new Date(body[field] as string) : undefined);
  const parsed: ScheduleInput = {
    schedule_type: body.schedule_type as ScheduleInput['schedule_type'],
    run_at: date('run_at'),
    cron_expression: body.cron_expression as string | undefined,
    interval_seconds: body.interval_seconds as number | undefined,
    timezone: body.timezone as string | undefined,
    start_at: date('start_at'),
    end_at: date('end_at'),
    trigger_output: (assertStorableJson(body.trigger_output, 'trigger_output'), body.trigger_output ?? null),
    overlap: (body.overlap as ScheduleInput['overlap']) ?? 'skip',
    catchup_window_seconds: body.catchup_window_seconds as number | undefined,
    pause_on_failure: (body.pause_on_failure as boolean | undefined) ?? false,
    note: body.note as string | undefined,
  };
  if (parsed.schedule_type === 'scheduled') {
    if (!parsed.run_at) fail('run_at', 'is required for a scheduled (one-off) run');
    if (parsed.run_at!.getTime() <= now.getTime()) fail('run_at', 'must be in the future');
  }
  if (parsed.schedule_type === 'recurring') {
    if ((parsed.cron_expression === undefined) === (parsed.interval_seconds === undefined))
      fail('cron_expression', 'or interval_seconds (exactly one) is required for a recurring schedule');
    if (parsed.start_at && parsed.end_at && parsed.end_at <= parsed.start_at) fail('end_at', 'must come after start_at');
  }
  checkTiming(parsed);
  return parsed;
}

export function parseSchedulePatch(input: unknown): ScheduleTimingPatch & { paused?: boolean; note?: string } {
  const body = SCHEDULE_PATCH_BODY.parse(input);
  if (body.cron_expression !== undefined && body.interval_seconds !== undefined)
    fail('cron_expression', 'and interval_seconds cannot both be set');
  checkTiming(body);
  return body;
}

export function parseBackfill(input: unknown): { start: Date; end: Date } {
  const { start, end } = BACKFILL_BODY.parse(input);
  if (new Date(end) <= new Date(start)) fail('end', 'must come after start');
  return { start: new Date(start), end: new Date(end) };
}

/**
 * The operator's floor on how often a schedule may fire (SCHEDULE_MIN_INTERVAL_SECONDS), whatever the
 * syntax: interval_seconds, `@every`, or a calendar (its closest two fires, seconds field included).
 */
export function assertFiresAtMostEvery(minSeconds: number, timing: { interval_seconds?: number; cron_expression?: string }): void {
  if (timing.interval_seconds !== undefined && timing.interval_seconds < minSeconds)
    fail('interval_seconds', `must be at least ${minSeconds} (SCHEDULE_MIN_INTERVAL_SECONDS)`);
  if (timing.cron_expression === undefined) return;
  const gap = smallestGapSeconds(cronTiming(timing.cron_expression));
  if (gap < minSeconds)
    fail(
      'cron_expression',
      `fires ${formatGap(gap)} after a previous fire: schedules fire at most every ${minSeconds} s (SCHEDULE_MIN_INTERVAL_SECONDS)`,
    );
}

const formatGap = (seconds: number) => (seconds >= 1 ? `${seconds} s` : `${Math.round(seconds * 1e6) / 1000} ms`);

/** A backfill covers at most `maxSeconds` (BACKFILL_MAX_SPAN_SECONDS). */
export function assertBackfillSpan(maxSeconds: number, { start, end }: { start: Date; end: Date }): void {
  if (end.getTime() - start.getTime() > maxSeconds * 1000)
    fail('end', `must be at most ${maxSeconds} s after start (BACKFILL_MAX_SPAN_SECONDS)`);
}
