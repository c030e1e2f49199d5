// Schedules are Temporal Schedules: no scheduler of our own. This wraps the client's schedule API.
import { Injectable } from '@nestjs/common';
import { ScheduleNotFoundError, ScheduleOverlapPolicy, type CalendarSpec, type ScheduleSpec } from '@temporalio/client';
import { RUN_WORKFLOW_TYPE, scheduleWorkflowId, type ScheduledRunRequest } from '@app/contracts';
import { runSearchAttributes } from './search-attributes';
import { TemporalClient } from './temporal-client';

export const OVERLAP_POLICIES = {
  skip: 'SKIP',
  buffer_one: 'BUFFER_ONE',
  buffer_all: 'BUFFER_ALL',
  cancel_other: 'CANCEL_OTHER',
  terminate_other: 'TERMINATE_OTHER',
  allow_all: 'ALLOW_ALL',
} as const;
export type Overlap = keyof typeof OVERLAP_POLICIES;

/** When a schedule fires: a cron expression, a fixed interval, or once at `run_at`. */
export interface ScheduleTiming {
  cron_expression?: string;
  interval_seconds?: number;
  run_at?: Date;
  timezone?: string;
  start_at?: Date;
  end_at?: Date;
}

export interface NewSchedule {
  id: string;
  timing: ScheduleTiming;
  request: ScheduledRunRequest;
  workflowName: string;
  overlap: Overlap;
  catchupWindowSeconds?: number;
  pauseOnFailure: boolean;
  note?: string;
  /** Created paused (the workflow is not active). */
  paused?: boolean;
}

export interface ScheduleState {
  paused: boolean;
  note: string | null;
  remaining_actions: number | null;
  next_action_times: Date[];
  recent_actions: { scheduled_at: Date; taken_at: Date; temporal_workflow_id: string }[];
}

const MONTHS = [
  'JANUARY',
  'FEBRUARY',
  'MARCH',
  'APRIL',
  'MAY',
  'JUNE',
  'JULY',
  'AUGUST',
  'SEPTEMBER',
  'OCTOBER',
  'NOVEMBER',
  'DECEMBER',
] as const;

function specOf(timing: ScheduleTiming): ScheduleSpec {
  const once: CalendarSpec[] | undefined = timing.run_at && [
    {
      year: timing.run_at.getUTCFullYear(),
      month: MONTHS[timing.run_at.getUTCMonth()],
      dayOfMonth: timing.run_at.getUTCDate(),
      hour: timing.run_at.getUTCHours(),
      minute: timing.run_at.getUTCMinutes(),
      second: timing.run_at.getUTCSeconds(),
    },
  ];
  return {
    ...(timing.cron_expression ? { cronExpressions: [timing.cron_expression] } : {}),
    ...(timing.interval_seconds ? { intervals: [{ every: `${timing.interval_seconds} seconds` }] } : {}),
    ...(once ? { calendars: once } : {}),
    ...(timing.timezone && !timing.run_at ? { timezone: timing.timezone } : {}),
    ...(timing.start_at ? { startAt: timing.start_at } : {}),
    ...(timing.end_at ? { endAt: timing.end_at } : {}),
  };
}

export abstract class ScheduleGateway {
  abstract create(schedule: NewSchedule): Promise<void>;
  /** Null when Temporal has no such schedule (it was deleted there). */
  abstract describe(id: string): Promise<ScheduleState | null>;
  abstract update(id: string, change: { timing?: ScheduleTiming; paused?: boolean; note?: string }): Promise<void>;
  abstract trigger(id: string): Promise<void>;
  abstract backfill(id: string, start: Date, end: Date): Promise<void>;
  abstract delete(id: string): Promise<void>;
}

@Injectable()
export class TemporalScheduleGateway extends ScheduleGateway {
  constructor(private readonly temporal: TemporalClient) {
    super();
  }

  private async handle(id: string) {
    return (await this.temporal.get()).schedule.getHandle(id);
  }

  async create(schedule: NewSchedule): Promise<void> {
    const client = await this.temporal.get();
    const { scheduled } = schedule.request;
    await client.schedule.create({
      scheduleId: schedule.id,
      spec: specOf(schedule.timing),
      action: {
        type: 'startWorkflow',
        workflowType: RUN_WORKFLOW_TYPE,
        workflowId: scheduleWorkflowId(schedule.id),
        taskQueue: this.temporal.config.temporal.taskQueue,
        args: [schedule.request],
        memo: {
          schedule_id: schedule.id,
          workflow_uuid: scheduled.workflow_uuid,
          workflow_name: schedule.workflowName,
          user_id: scheduled.user_id,
        },
        typedSearchAttributes: runSearchAttributes({
          workflow_uuid: scheduled.workflow_uuid,
          workflow_name: schedule.workflowName,
          user_id: scheduled.user_id,
        }),
      },
      policies: {
        overlap: ScheduleOverlapPolicy[OVERLAP_POLICIES[schedule.overlap]],
        pauseOnFailure: schedule.pauseOnFailure,
        ...(schedule.catchupWindowSeconds ? { catchupWindow: `${schedule.catchupWindowSeconds} seconds` } : {}),
      },
      state: { note: schedule.note, paused: schedule.paused ?? false, ...(schedule.timing.run_at ? { remainingActions: 1 } : {}) },
    });
  }

  async describe(id: string): Promise<ScheduleState | null> {
    try {
      const description = await (await this.handle(id)).describe();
      return {
        paused: description.state.paused,
        note: description.state.note ?? null,
        remaining_actions: description.state.remainingActions ?? null,
        next_action_times: description.info.nextActionTimes,
        recent_actions: description.info.recentActions.map((action) => ({
          scheduled_at: action.scheduledAt,
          taken_at: action.takenAt,
          temporal_workflow_id: action.action.workflow.workflowId,
        })),
      };
    } catch (error) {
      if (error instanceof ScheduleNotFoundError) return null;
      throw error;
    }
  }

  async update(id: string, change: { timing?: ScheduleTiming; paused?: boolean; note?: string }): Promise<void> {
    const handle = await this.handle(id);
    if (change.timing) {
      const spec = specOf(change.timing);
      await handle.update((previous) => ({
        ...previous,
        spec: { ...previous.spec, cronExpressions: undefined, intervals: undefined, ...spec },
      }));
    }
    if (change.paused === true) await handle.pause(change.note);
    if (change.paused === false) await handle.unpause(change.note);
  }

  async trigger(id: string): Promise<void> {
    await (await this.handle(id)).trigger(ScheduleOverlapPolicy.ALLOW_ALL);
  }

  async backfill(id: string, start: Date, end: Date): Promise<void> {
    await (await this.handle(id)).backfill({ start, end, overlap: ScheduleOverlapPolicy.ALLOW_ALL });
  }

  async delete(id: string): Promise<void> {
    try {
      await (await this.handle(id)).delete();
    } catch (error) {
      if (!(error instanceof ScheduleNotFoundError)) throw error;
    }
  }
}
