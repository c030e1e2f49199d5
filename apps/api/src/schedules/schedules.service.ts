import { randomUUID } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { AppConfig } from '@app/config';
import {
  acceptsRuns,
  assertAcceptsRuns,
  assertBackfillSpan,
  assertFiresAtMostEvery,
  DomainError,
  ErrorCode,
  notFound,
  parseBackfill,
  parseScheduleInput,
  parseSchedulePatch,
  type ScheduleInput,
} from '@app/domain';
import { RunRepository, ScheduleRepository, WorkflowRepository, type ScheduleRecord } from '@app/persistence';
import { RunStarter } from '@app/runs';
import { toRunView } from '../runs/run.views';
import { ScheduleGateway, type ScheduleTiming } from '../temporal/schedule-gateway';

const timingOf = (input: Partial<ScheduleInput>): ScheduleTiming => ({
  cron_expression: input.cron_expression,
  interval_seconds: input.interval_seconds,
  run_at: input.run_at,
  timezone: input.timezone,
  start_at: input.start_at,
  end_at: input.end_at,
});

const storedTiming = (timing: ScheduleTiming): Record<string, unknown> =>
  Object.fromEntries(
    Object.entries(timing)
      .filter(([, value]) => value !== undefined)
      .map(([key, value]) => [key, value instanceof Date ? value.toISOString() : value]),
  );

const timingFromStore = (stored: Record<string, unknown>): ScheduleTiming => ({
  ...(stored as ScheduleTiming),
  ...Object.fromEntries(['run_at', 'start_at', 'end_at'].filter((key) => stored[key]).map((key) => [key, new Date(stored[key] as string)])),
});

const logger = new Logger('schedules');

/** Temporal refuses what our checks let through (an exotic cron, say) with INVALID_ARGUMENT: a 422 in our words. */
function asValidationError(error: unknown): unknown {
  const code = (error as { code?: number; cause?: { code?: number } })?.code ?? (error as { cause?: { code?: number } })?.cause?.code;
  if (code !== 3) return error;
  logger.warn(`Temporal refused a schedule: ${(error as Error).message}`);
  return new DomainError(
    ErrorCode.ValidationFailed,
    'The schedule cannot be made as given: check cron_expression, interval_seconds and timezone',
    { field: 'cron_expression' },
  );
}

@Injectable()
export class SchedulesService {
  constructor(
    private readonly schedules: ScheduleRepository,
    private readonly workflows: WorkflowRepository,
    private readonly runs: RunRepository,
    private readonly gateway: ScheduleGateway,
    private readonly starter: RunStarter,
    private readonly config: AppConfig,
  ) {}

  /** `immediate` starts a run now; `scheduled` (once) and `recurring` become Temporal Schedules. */
  async create(userId: string, workflowUuid: string, body: unknown) {
    const input = parseScheduleInput(body, new Date());
    assertFiresAtMostEvery(this.config.quotas.scheduleMinIntervalSeconds, input);
    const workflow = await this.workflows.find(userId, workflowUuid);
    if (!workflow) throw notFound('Workflow', workflowUuid);
    if (input.schedule_type === 'immediate') {
      const { run } = await this.starter.start({ userId, workflowUuid, triggerOutput: input.trigger_output, origin: 'manual' });
      return { schedule_type: 'immediate', run: toRunView(run, this.config.temporal.webUiUrl, this.config.temporal.namespace) };
    }
    const id = `sched-${randomUUID()}`;
    const timing = timingOf(input);
    // The row first, within the caps, so that a create past them costs Temporal nothing.
    await this.reserve({
      id,
      user_id: userId,
      workflow_uuid: workflowUuid,
      schedule_type: input.schedule_type,
      timing: storedTiming(timing),
      note: input.note ?? null,
    });
    try {
      await this.gateway.create({
        id,
        timing,
        workflowName: workflow.name,
        request: {
          scheduled: { schedule_id: id, workflow_uuid: workflowUuid, user_id: userId, trigger_output: input.trigger_output },
          heartbeat_timeout_seconds: this.config.temporal.heartbeatTimeoutSeconds,
        },
        overlap: input.overlap,
        catchupWindowSeconds: input.catchup_window_seconds,
        pauseOnFailure: input.pause_on_failure,
        note: input.note,
        // Made paused while the workflow refuses scheduled runs.
        ...(acceptsRuns(workflow, 'schedule') ? {} : { paused: true }),
      });
    } catch (error) {
      await this.schedules.delete(id);
      throw asValidationError(error);
    }
    return this.get(userId, id);
  }

  async get(userId: string, id: string) {
    return this.view(userId, await this.owned(userId, id));
  }

  async listForWorkflow(userId: string, workflowUuid: string) {
    if (!(await this.workflows.find(userId, workflowUuid))) throw notFound('Workflow', workflowUuid);
    const records = await this.schedules.listForWorkflow(userId, workflowUuid);
    const items = await Promise.all(records.map((record) => this.view(userId, record)));
    return { items, total: items.length, next_cursor: null };
  }

  async update(userId: string, id: string, body: unknown) {
    const patch = parseSchedulePatch(body);
    assertFiresAtMostEvery(this.config.quotas.scheduleMinIntervalSeconds, patch);
    const record = await this.owned(userId, id);
    const changesTiming = patch.cron_expression !== undefined || patch.interval_seconds !== undefined || patch.timezone !== undefined;
    if (changesTiming && record.schedule_type !== 'recurring') {
      throw new DomainError(ErrorCode.ValidationFailed, 'Only recurring schedules take a cron_expression, interval_seconds or timezone', {
        field: 'schedule_type',
      });
    }
    const current = timingFromStore(record.timing);
    const timing: ScheduleTiming = {
      ...current,
      ...(patch.cron_expression !== undefined ? { cron_expression: patch.cron_expression, interval_seconds: undefined } : {}),
      ...(patch.interval_seconds !== undefined ? { interval_seconds: patch.interval_seconds, cron_expression: undefined } : {}),
      ...(patch.timezone !== undefined ? { timezone: patch.timezone } : {}),
    };
    try {
      await this.gateway.update(id, { ...(changesTiming ? { timing } : {}), paused: patch.paused, note: patch.note });
    } catch (error) {
      throw asValidationError(error);
    }
    await this.schedules.update(id, {
      ...(changesTiming ? { timing: storedTiming(timing) } : {}),
      ...(patch.note !== undefined ? { note: patch.note } : {}),
    });
    return this.get(userId, id);
  }

  async trigger(userId: string, id: string) {
    await this.takingScheduledRuns(userId, await this.owned(userId, id));
    await this.gateway.trigger(id);
    return { id, triggered: true };
  }

  async backfill(userId: string, id: string, body: unknown) {
    const { start, end } = parseBackfill(body);
    assertBackfillSpan(this.config.quotas.backfillMaxSpanSeconds, { start, end });
    await this.takingScheduledRuns(userId, await this.owned(userId, id));
    await this.gateway.backfill(id, start, end);
    return { id, backfill: { start, end } };
  }

  async remove(userId: string, id: string): Promise<void> {
    await this.owned(userId, id);
    await this.gateway.delete(id);
    await this.schedules.delete(id);
  }

  async setPausedForWorkflow(userId: string, workflowUuid: string, paused: boolean): Promise<void> {
    for (const record of await this.schedules.listForWorkflow(userId, workflowUuid)) {
      await this.gateway.update(record.id, { paused, note: paused ? 'workflow deactivated' : 'workflow activated' });
    }
  }

  /** A deleted workflow takes its schedules with it. */
  async removeForWorkflow(userId: string, workflowUuid: string): Promise<void> {
    for (const record of await this.schedules.listForWorkflow(userId, workflowUuid)) {
      await this.gateway.delete(record.id);
      await this.schedules.delete(record.id);
    }
  }

  /** Records the schedule, or refuses it past SCHEDULES_MAX_PER_WORKFLOW or SCHEDULES_MAX_PER_USER. */
  private async reserve(record: Omit<ScheduleRecord, 'created_at'>): Promise<void> {
    const { maxSchedulesPerWorkflow: perWorkflow, maxSchedulesPerUser: perUser } = this.config.quotas;
    const hit = await this.schedules.insertWithinCaps(record, { perWorkflow, perUser });
    if (hit === 'perWorkflow') {
      throw new DomainError(
        ErrorCode.TooManySchedules,
        `Workflow ${record.workflow_uuid} has ${perWorkflow} schedules already (SCHEDULES_MAX_PER_WORKFLOW): delete one first`,
        {
          field: 'workflow_uuid',
          limit: perWorkflow,
          setting: 'SCHEDULES_MAX_PER_WORKFLOW',
        },
      );
    }
    if (hit === 'perUser') {
      throw new DomainError(
        ErrorCode.TooManySchedules,
        `You have ${perUser} schedules already (SCHEDULES_MAX_PER_USER): delete one first`,
        { limit: perUser, setting: 'SCHEDULES_MAX_PER_USER' },
      );
    }
  }

  /** A fire asked for by hand (trigger, backfill) is refused here, in words, rather than by the worker after a 202. */
  private async takingScheduledRuns(userId: string, record: ScheduleRecord): Promise<void> {
    const workflow = await this.workflows.find(userId, record.workflow_uuid);
    if (!workflow) throw notFound('Workflow', record.workflow_uuid);
    assertAcceptsRuns(workflow, 'schedule');
  }

  private async owned(userId: string, id: string): Promise<ScheduleRecord> {
    return (await this.schedules.find(userId, id)) ?? Promise.reject(notFound('Schedule', id));
  }

  private async view(userId: string, record: ScheduleRecord) {
    const state = await this.gateway.describe(record.id);
    const runs = await this.runs.list(userId, { schedule_id: record.id }, { limit: 200 });
    const runOf = new Map(runs.items.map((run) => [run.temporal_workflow_id, run.uuid]));
    return {
      id: record.id,
      workflow_uuid: record.workflow_uuid,
      schedule_type: record.schedule_type,
      ...record.timing,
      note: record.note,
      created_at: record.created_at,
      exists_in_temporal: state !== null,
      paused: state?.paused ?? null,
      remaining_actions: state?.remaining_actions ?? null,
      next_action_times: state?.next_action_times ?? [],
      recent_actions: (state?.recent_actions ?? []).map((action) => ({
        ...action,
        run_uuid: runOf.get(action.temporal_workflow_id) ?? null,
      })),
    };
  }
}
