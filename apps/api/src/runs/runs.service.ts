import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { AppConfig } from '@app/config';
import { RUN_STATUSES, type RunStatus } from '@app/contracts';
import {
  BUDGET_APPROVAL_BODY,
  DomainError,
  ErrorCode,
  isUuid,
  MESSAGE_BODY,
  nameBasedUuid,
  notFound,
  parseWorkflowInput,
  REPLAY_BODY,
  replayReport,
  RESUME_BODY,
  RUN_START_BODY,
} from '@app/domain';
import { OutputRepository, RunRepository, WorkflowRepository, type Page, type RunWithSteps } from '@app/persistence';
import { RunInteractions, RunReader, RunStarter, type ReplayTarget, type StartedRun } from '@app/runs';
import type { Pagination } from '../common/pagination';
import { toOutputView, toRunSummaryView, toRunView } from './run.views';

/** The run uuid a request names: fresh, or derived from its Idempotency-Key so that a repeat names the same run. */
function runUuidFor(idempotencyKey: string | undefined, ...scope: string[]): string {
  if (idempotencyKey === undefined) return randomUUID();
  if (!/^[\x21-\x7e]{1,255}$/.test(idempotencyKey)) {
    throw new DomainError(ErrorCode.ValidationFailed, 'Idempotency-Key must be 1 to 255 visible ASCII characters', {
      field: 'Idempotency-Key',
    });
  }
  return nameBasedUuid(...scope, idempotencyKey);
}

/** A replay's target as the body names it; an inline definition parsed as POST /workflows parses one (its field paths under `target`). */
function replayTargetOf(target: 'current' | number | Record<string, unknown>): ReplayTarget {
  if (target === 'current') return { kind: 'current' };
  if (typeof target === 'number') return { kind: 'version', version: target };
  try {
    return { kind: 'definition', definition: { ...parseWorkflowInput(target, randomUUID), uuid: randomUUID() } };
  } catch (error) {
    if (error instanceof DomainError && typeof error.details.field === 'string')
      throw new DomainError(error.code, error.message, { ...error.details, field: `target.${error.details.field}` });
    throw error;
  }
}

/** How long POST /runs/{uuid}/messages waits for the turn's reply before answering 202 (wait_seconds changes it). */
const DEFAULT_MESSAGE_WAIT_SECONDS = 60;
const MAX_MESSAGE_WAIT_SECONDS = 300;

export interface RunQuery extends Pagination {
  status?: string;
  workflow_uuid?: string;
  schedule_id?: string;
}

/**
 * The run routes of REST and MCP over a run's life (`@app/runs`): each body read by its domain schema, a
 * request's Idempotency-Key turned into its run's uuid, and every run answered in the API's view.
 */
@Injectable()
export class RunsService {
  constructor(
    private readonly starter: RunStarter,
    private readonly reader: RunReader,
    private readonly interactions: RunInteractions,
    private readonly runs: RunRepository,
    private readonly outputs: OutputRepository,
    private readonly workflows: WorkflowRepository,
    private readonly config: AppConfig,
  ) {}

  /** POST /workflows/{uuid}/runs: 201 with a new run, 200 with the run a repeated Idempotency-Key names. */
  async startFromRequest(userId: string, workflowUuid: string, body: unknown, idempotencyKey?: string) {
    const { trigger_output, dry_run, budget } = RUN_START_BODY.parse(body);
    // A dry run and a real one never share a key's run.
    const runUuid = runUuidFor(idempotencyKey, userId, dry_run ? 'dry-run' : 'start', workflowUuid);
    return this.viewed(
      await this.starter.start({ userId, workflowUuid, triggerOutput: trigger_output, runUuid, origin: 'manual', dryRun: dry_run, budget }),
    );
  }

  /** POST /runs/{uuid}/resume: a new run linked to this one, from a step, the earlier outputs carried over. */
  async resume(userId: string, parentRunUuid: string, body: unknown, idempotencyKey?: string) {
    const { from_step_uuid, definition } = RESUME_BODY.parse(body);
    const runUuid = runUuidFor(idempotencyKey, userId, 'resume', parentRunUuid);
    return this.viewed(await this.starter.resume({ userId, parentRunUuid, fromStepUuid: from_step_uuid, definition, runUuid }));
  }

  /**
   * POST /runs/{uuid}/replay: the run's trigger data through a target definition as a new run, answered from the
   * run's record where it asks the same. An inline definition is read as a save reads it, and not saved.
   */
  async replay(userId: string, sourceRunUuid: string, body: unknown, idempotencyKey?: string) {
    const { target, offline } = REPLAY_BODY.parse(body);
    const runUuid = runUuidFor(idempotencyKey, userId, offline ? 'replay-offline' : 'replay', sourceRunUuid);
    return this.viewed(await this.starter.replay({ userId, sourceRunUuid, target: replayTargetOf(target), offline, runUuid }));
  }

  /** GET /runs/{uuid}/replay-report: a replay's steps beside the replayed run's; a run that is no replay is a 404. */
  async replayReport(userId: string, replayUuid: string) {
    const replay = await this.reader.find(userId, replayUuid);
    if (!replay.replay_of) throw notFound('Replay', replayUuid);
    const source = await this.runs.find(userId, replay.replay_of);
    if (!source) throw notFound('Run', replay.replay_of);
    return {
      run_uuid: replay.uuid,
      replay_of: source.uuid,
      status: replay.status,
      offline: replay.replay_offline,
      ...replayReport(source.steps, replay.steps),
    };
  }

  /** GET /runs/{uuid}: as it stands (an end its execution had unrecorded shows, though only the reconciler records it). */
  async get(userId: string, runUuid: string) {
    return this.view(await this.reader.find(userId, runUuid));
  }

  /** GET /workflows/{uuid}/runs: a workflow that is not the user's is a 404, as on every other route. */
  async listForWorkflow(userId: string, workflowUuid: string, query: RunQuery) {
    if (!isUuid(workflowUuid) || !(await this.workflows.find(userId, workflowUuid))) throw notFound('Workflow', workflowUuid);
    return this.list(userId, { ...query, workflow_uuid: workflowUuid });
  }

  async list(userId: string, query: RunQuery): Promise<Page<ReturnType<typeof toRunSummaryView>>> {
    if (query.status !== undefined && !(RUN_STATUSES as readonly string[]).includes(query.status)) {
      throw new DomainError(ErrorCode.ValidationFailed, `status must be one of ${RUN_STATUSES.join(', ')}`, { field: 'status' });
    }
    if (query.workflow_uuid !== undefined && !isUuid(query.workflow_uuid))
      throw new DomainError(ErrorCode.ValidationFailed, 'workflow_uuid must be a uuid', { field: 'workflow_uuid' });
    if (query.schedule_id !== undefined && !/^[\w-]{1,100}$/.test(query.schedule_id))
      throw new DomainError(ErrorCode.ValidationFailed, 'schedule_id must be the id of a schedule', { field: 'schedule_id' });
    const page = await this.runs.list(
      userId,
      { status: query.status as RunStatus | undefined, workflow_uuid: query.workflow_uuid, schedule_id: query.schedule_id },
      query,
    );
    return {
      ...page,
      items: page.items.map((run) => toRunSummaryView(run, this.config.temporal.webUiUrl, this.config.temporal.namespace)),
    };
  }

  /** POST /runs/{uuid}/approve-budget: a run waiting on its token budget goes on with a new limit. */
  approveBudget(userId: string, runUuid: string, body: unknown) {
    return this.interactions.approveBudget(userId, runUuid, BUDGET_APPROVAL_BODY.parse(body));
  }

  cancel(userId: string, runUuid: string) {
    return this.interactions.cancel(userId, runUuid);
  }

  /** POST /runs/{uuid}/steps/{step_uuid}/input: its body is read once the step is known (its input_schema checks the answer). */
  answer(userId: string, runUuid: string, stepUuid: string, body: unknown) {
    return this.interactions.answer(userId, runUuid, stepUuid, body);
  }

  /** POST /runs/{uuid}/messages: the reply when the turn answers within `waitSeconds`, else the turn's id (the run shows it). */
  sendMessage(userId: string, runUuid: string, body: unknown, waitSeconds: unknown) {
    const { content } = MESSAGE_BODY.parse(body);
    const wait = waitSeconds === undefined ? DEFAULT_MESSAGE_WAIT_SECONDS : Number(waitSeconds);
    if (!Number.isInteger(wait) || wait < 0 || wait > MAX_MESSAGE_WAIT_SECONDS) {
      throw new DomainError(ErrorCode.ValidationFailed, `wait_seconds must be an integer from 0 to ${MAX_MESSAGE_WAIT_SECONDS}`, {
        field: 'wait_seconds',
      });
    }
    return this.interactions.sendMessage(userId, runUuid, content, wait * 1000);
  }

  async output(userId: string, outputId: string) {
    const output = await this.outputs.findOutput(userId, outputId);
    if (!output) throw notFound('Output', outputId);
    return toOutputView(output);
  }

  /** A started run in the API's view. */
  private viewed({ created, run }: StartedRun) {
    return { created, run: this.view(run) };
  }

  private view(run: RunWithSteps) {
    return toRunView(run, this.config.temporal.webUiUrl, this.config.temporal.namespace);
  }
}
