import { randomUUID } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { AppConfig } from '@app/config';
import { Metrics } from '@app/observability';
import { RUN_STATUSES, isInFlight, runWorkflowId, type HumanInputAccepted, type PreparedRun, type RunBudget, type RunStatus, type WorkflowDefinition } from '@app/contracts';
import { assertStorableJson, DomainError, ErrorCode, humanAnswerOf, notFound, requireJsonObject, type RunOrigin } from '@app/domain';
import { OutputRepository, RunRepository, StepRepository, WorkflowRepository, type Page, type RunRecord, type RunWithSteps } from '@app/persistence';
import { RunPreparer, RunResumer } from '@app/runs';
import { isUuid, nameBasedUuid } from '../common/uuids';
import { resumeOptionsOf } from './resume-options';
import type { Pagination } from '../common/pagination';
import { type ExecutionState, RunLauncher } from '../temporal/run-launcher';
import { toOutputView, toRunSummaryView, toRunView } from './run.views';

/** The body of POST /workflows/{uuid}/runs: `{trigger_output?, dry_run?, budget?: {max_tokens}}`. */
function startOptionsOf(body: unknown): { trigger: unknown; dryRun: boolean; budget?: RunBudget } {
  const fields = requireJsonObject(body, { holding: 'with an optional trigger_output' });
  const { trigger_output, dry_run, budget } = fields as { trigger_output?: unknown; dry_run?: unknown; budget?: { max_tokens?: unknown } | null };
  if (dry_run !== undefined && typeof dry_run !== 'boolean') throw new DomainError(ErrorCode.ValidationFailed, 'dry_run must be true or false', { field: 'dry_run' });
  const maxTokens = budget?.max_tokens;
  if (budget !== undefined && budget !== null && !(Number.isInteger(maxTokens) && (maxTokens as number) >= 1 && (maxTokens as number) <= 1e12)) {
    throw new DomainError(ErrorCode.ValidationFailed, 'budget must be {"max_tokens": a whole number of tokens}', { field: 'budget.max_tokens' });
  }
  assertStorableJson(trigger_output, 'trigger_output');
  return { trigger: trigger_output ?? null, dryRun: dry_run === true, ...(budget ? { budget: { max_tokens: maxTokens as number } } : {}) };
}

/** The run uuid a request names: fresh, or derived from its Idempotency-Key so that a repeat names the same run. */
function runUuidFor(idempotencyKey: string | undefined, ...scope: string[]): string {
  if (idempotencyKey === undefined) return randomUUID();
  if (!/^[\x21-\x7e]{1,255}$/.test(idempotencyKey)) {
    throw new DomainError(ErrorCode.ValidationFailed, 'Idempotency-Key must be 1 to 255 visible ASCII characters', { field: 'Idempotency-Key' });
  }
  return nameBasedUuid(...scope, idempotencyKey);
}

/** How long POST /runs/{uuid}/messages waits for the turn's reply before answering 202 (wait_seconds changes it). */
const DEFAULT_MESSAGE_WAIT_SECONDS = 60;
const MAX_MESSAGE_WAIT_SECONDS = 300;

/** How long a run may have no Temporal execution before it counts as never started (the API starts it right after recording it). */
const START_GRACE_MS = 60_000;

/** How a run is started: by whom (the workflow's status may refuse some), under which uuid (default: a new one). */
export interface StartOptions {
  origin: RunOrigin;
  runUuid?: string;
  dryRun?: boolean;
  budget?: RunBudget;
}

export interface RunQuery extends Pagination {
  status?: string;
  workflow_uuid?: string;
  schedule_id?: string;
}

@Injectable()
export class RunsService {
  private readonly logger = new Logger('runs');

  constructor(
    private readonly preparer: RunPreparer,
    private readonly resumer: RunResumer,
    private readonly runs: RunRepository,
    private readonly steps: StepRepository,
    private readonly outputs: OutputRepository,
    private readonly launcher: RunLauncher,
    private readonly config: AppConfig,
    private readonly metrics: Metrics,
    private readonly workflows: WorkflowRepository,
  ) {}

  /** POST /workflows/{uuid}/runs */
  async startFromRequest(userId: string, workflowUuid: string, body: unknown, idempotencyKey?: string) {
    const { trigger, dryRun, budget } = startOptionsOf(body);
    // A dry run and a real one never share a key's run.
    return this.start(userId, workflowUuid, trigger, { origin: 'manual', runUuid: runUuidFor(idempotencyKey, userId, dryRun ? 'dry-run' : 'start', workflowUuid), dryRun, budget });
  }

  /**
   * Snapshots the definition, records the run and its pending steps, then starts the Temporal workflow.
   * With a given `runUuid` that exists already, returns that run (`created: false`).
   */
  async start(userId: string, workflowUuid: string, triggerOutput: unknown, options: StartOptions) {
    const { origin, runUuid = randomUUID(), dryRun = false, budget } = options;
    const prepared = await this.preparer.prepare({ userId, workflowUuid, triggerOutput, runUuid, temporalWorkflowId: runWorkflowId(runUuid), origin, dryRun, budget });
    return this.launch(userId, prepared);
  }

  /** POST /runs/{uuid}/resume: a new run linked to this one, from a step, the earlier outputs carried over. */
  async resume(userId: string, parentRunUuid: string, body: unknown, idempotencyKey?: string) {
    const { from_step_uuid, definition } = resumeOptionsOf(body);
    const runUuid = runUuidFor(idempotencyKey, userId, 'resume', parentRunUuid);
    const prepared = await this.resumer.prepare({ userId, parentRunUuid, fromStepUuid: from_step_uuid, definition, runUuid, temporalWorkflowId: runWorkflowId(runUuid) });
    return this.launch(userId, prepared);
  }

  /**
   * Starts the execution of a recorded run. A run recorded by an earlier request (same key) is started
   * again while it is recorded running: Temporal's conflict policy joins the execution if it exists, so a
   * request that died between recording and starting is completed by its repeat.
   */
  private async launch(userId: string, { created, run, written }: { created: boolean; run: PreparedRun; written?: RunWithSteps | null }) {
    const recorded = created ? null : await this.find(userId, run.run_uuid);
    if (created || (recorded && isInFlight(recorded.status))) {
      try {
        await this.launcher.start(run);
      } catch (error) {
        this.logger.error(`run ${run.run_uuid} could not start: ${(error as Error).message}`);
        // Temporal down: the request leaves nothing behind and can simply be repeated.
        if (created && error instanceof DomainError && error.code === ErrorCode.TemporalUnavailable) await this.runs.discardUnstarted(run.run_uuid);
        // The reason is in the log line above; Temporal's own wording is not the user's business.
        else if (created) await this.runs.finishRun(run.run_uuid, 'failed', 'The run could not be started: Temporal refused it (see the API log for this run)');
        throw error;
      }
    }
    if (created) {
      this.metrics.runsStarted.inc();
      this.logger.log({ msg: 'run started', run_uuid: run.run_uuid, workflow_uuid: run.definition.uuid });
    }
    // A repeat answers with the run as it read it: starting its execution again changes no row. A new run
    // answers as it was written (its workflow may have moved it on since: GET shows that).
    return { created, run: this.view(recorded ?? written ?? (await this.find(userId, run.run_uuid))) };
  }

  async get(userId: string, runUuid: string) {
    await this.current(userId, runUuid);
    return this.view(await this.find(userId, runUuid));
  }

  private view(run: RunWithSteps) {
    return toRunView(run, this.config.temporal.webUiUrl, this.config.temporal.namespace);
  }

  /** The run with its steps and audit. */
  private find(userId: string, runUuid: string): Promise<RunWithSteps> {
    return this.found(this.runs.find(userId, runUuid), runUuid);
  }

  /** The run's row alone. */
  private findRun(userId: string, runUuid: string): Promise<RunRecord> {
    return this.found(this.runs.findRun(userId, runUuid), runUuid);
  }

  private async found<T>(read: Promise<T | null>, runUuid: string): Promise<T> {
    const run = await read;
    if (!run) throw notFound('Run', runUuid);
    return run;
  }

  /**
   * The run's row as recorded, brought in line with Temporal when it is recorded running but its execution
   * has ended without saying so: terminated from the Web UI or CLI, or by the server (a payload over its
   * limit). Its steps and audit are read only to close such a run.
   */
  private async current(userId: string, runUuid: string): Promise<RunRecord> {
    const run = await this.findRun(userId, runUuid);
    if (!isInFlight(run.status)) return run;
    let execution: ExecutionState;
    try {
      execution = await this.launcher.observe(run.temporal_workflow_id);
    } catch (error) {
      this.logger.warn(`run ${runUuid}: Temporal could not be asked about its execution: ${(error as Error).message}`);
      return run;
    }
    if (execution.state === 'running' || (execution.state === 'missing' && Date.now() - run.created_at.getTime() < START_GRACE_MS)) return run;
    // The run may have recorded its own end between the read above and Temporal's answer.
    const reread = await this.findRun(userId, runUuid);
    if (!isInFlight(reread.status)) return reread;
    const ended =
      execution.state === 'closed'
        ? execution
        : { status: 'failed' as const, error_message: 'The run has no Temporal execution: it never started, or Temporal no longer keeps it' };
    this.logger.warn(`run ${runUuid} was recorded running but its execution has ended: ${ended.error_message}`);
    const { steps } = await this.find(userId, runUuid);
    for (const step of steps.filter((candidate) => candidate.status === 'running' || candidate.status === 'awaiting_input')) await this.steps.failStep(step.uuid, `Interrupted: ${ended.error_message}`);
    await this.runs.finishRun(run.uuid, ended.status, ended.error_message);
    return this.findRun(userId, runUuid);
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
    if (query.workflow_uuid !== undefined && !isUuid(query.workflow_uuid)) throw new DomainError(ErrorCode.ValidationFailed, 'workflow_uuid must be a uuid', { field: 'workflow_uuid' });
    if (query.schedule_id !== undefined && !/^[\w-]{1,100}$/.test(query.schedule_id)) throw new DomainError(ErrorCode.ValidationFailed, 'schedule_id must be the id of a schedule', { field: 'schedule_id' });
    const page = await this.runs.list(userId, { status: query.status as RunStatus | undefined, workflow_uuid: query.workflow_uuid, schedule_id: query.schedule_id }, query);
    return { ...page, items: page.items.map((run) => toRunSummaryView(run, this.config.temporal.webUiUrl, this.config.temporal.namespace)) };
  }

  /** POST /runs/{uuid}/approve-budget: a run waiting on its token budget goes on with a new limit. */
  async approveBudget(userId: string, runUuid: string, body: unknown) {
    const maxTokens = (body as { max_tokens?: unknown } | null)?.max_tokens;
    if (!Number.isInteger(maxTokens) || (maxTokens as number) < 1) throw new DomainError(ErrorCode.ValidationFailed, 'max_tokens must be a whole number of tokens', { field: 'max_tokens' });
    const run = await this.current(userId, runUuid);
    if (!run.budget?.paused_at_tokens) throw new DomainError(ErrorCode.RunNotActive, 'The run is not waiting for a budget approval', { field: 'max_tokens' });
    return this.launcher.approveBudget(run.temporal_workflow_id, { max_tokens: maxTokens as number });
  }

  async cancel(userId: string, runUuid: string) {
    const run = await this.current(userId, runUuid);
    if (!isInFlight(run.status)) {
      throw new DomainError(ErrorCode.RunNotActive, `The run is ${run.status}: only running or awaiting_input runs can be cancelled`, { status: run.status });
    }
    await this.launcher.cancel(run.temporal_workflow_id);
    return { uuid: runUuid, status: run.status, cancel_requested: true };
  }

  /**
   * POST /runs/{uuid}/steps/{step_uuid}/input: the answer is checked against the step's input_schema here,
   * then delivered through the workflow's Update, whose validator refuses it unless that step waits now.
   */
  async answer(userId: string, runUuid: string, stepUuid: string, body: unknown): Promise<HumanInputAccepted> {
    const run = await this.current(userId, runUuid);
    const { step, input } = humanAnswerOf(run.definition as WorkflowDefinition, stepUuid, body);
    if (run.status !== 'awaiting_input') {
      throw new DomainError(ErrorCode.StepNotAwaitingInput, `The run is ${run.status}: it waits for no input`, { field: 'step_uuid', status: run.status });
    }
    return this.launcher.answer(run.temporal_workflow_id, { step_uuid: step.uuid, input });
  }

  /**
   * POST /runs/{uuid}/messages: a user message to a conversational run, delivered through the workflow's
   * Update; the reply when the turn answers within `waitSeconds`, else the turn's id (the run shows it).
   */
  async sendMessage(userId: string, runUuid: string, body: unknown, waitSeconds: unknown) {
    const content = (body as { content?: unknown } | null)?.content;
    if (typeof content !== 'string' || !content.trim()) throw new DomainError(ErrorCode.ValidationFailed, 'content must be a non-empty string', { field: 'content' });
    const wait = waitSeconds === undefined ? DEFAULT_MESSAGE_WAIT_SECONDS : Number(waitSeconds);
    if (!Number.isInteger(wait) || wait < 0 || wait > MAX_MESSAGE_WAIT_SECONDS) {
      throw new DomainError(ErrorCode.ValidationFailed, `wait_seconds must be an integer from 0 to ${MAX_MESSAGE_WAIT_SECONDS}`, { field: 'wait_seconds' });
    }
    const run = await this.current(userId, runUuid);
    if (!(run.definition as WorkflowDefinition).graph?.is_conversational) {
      throw new DomainError(ErrorCode.NotConversational, 'The run is not a conversation: its workflow has no conversational graph', { field: 'run_uuid' });
    }
    if (!isInFlight(run.status)) throw new DomainError(ErrorCode.RunNotActive, `The run is ${run.status}: the conversation is closed`, { field: 'run_uuid', status: run.status });
    return this.launcher.sendMessage(run.temporal_workflow_id, { content }, wait * 1000);
  }

  async output(userId: string, outputId: string) {
    const output = await this.outputs.findOutput(userId, outputId);
    if (!output) throw notFound('Output', outputId);
    return toOutputView(output);
  }
}
