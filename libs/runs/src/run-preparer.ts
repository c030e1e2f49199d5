import { randomUUID } from 'node:crypto';
import { budgetLimits, type PreparedRun, type ReplaySource, type RunBudget, type WorkflowDefinition } from '@app/contracts';
import {
  assertAcceptsRuns,
  type ToolDrift,
  byteSize,
  DomainError,
  ErrorCode,
  markdownFor,
  modelPolicyIssues,
  notFound,
  outputPreview,
  throwIssues,
  type SerializedOutput,
  type ModelPolicy,
  type RunOrigin,
} from '@app/domain';
import {
  definitionOf,
  type NewRun,
  type NewTriggerOutput,
  type RunRepository,
  type RunWithSteps,
  type WorkflowRepository,
} from '@app/persistence';
import type { SpendPolicy } from './spend-policy';
import { pinSubWorkflows } from './sub-workflow-pins';
import type { ToolManifestService } from './tool-manifest.service';

export interface RunRequest {
  userId: string;
  workflowUuid: string;
  triggerOutput: unknown;
  /**
   * The trigger output already serialized and described off the event loop (a webhook delivery's, in its
   * pool): stored as it is, and `triggerOutput` not read.
   */
  serializedTrigger?: SerializedOutput;
  runUuid: string;
  temporalWorkflowId: string;
  /** Who starts it: whether the workflow takes it (`assertAcceptsRuns`) depends on it. */
  origin: RunOrigin;
  scheduleId?: string | null;
  /** The built-in dry-run model answers, no tool is called: nothing is paid for. */
  dryRun?: boolean;
  /** The run waits for an approval when its model calls have used this many tokens. */
  budget?: RunBudget;
  /** A replay of a recorded run (POST /runs/{uuid}/replay). */
  replay?: ReplaySource;
}

/** A prepared run; `written`: the new run as its rows show it (null when it was recorded already). */
export interface Prepared {
  created: boolean;
  run: PreparedRun;
  written?: RunWithSteps | null;
}

/**
 * How every run begins, whoever starts it (REST, a webhook, a schedule): snapshot the definition, record
 * the run, its trigger data and its pending steps. `created: false` when a run with that uuid exists.
 */
export class RunPreparer {
  constructor(
    private readonly workflows: WorkflowRepository,
    private readonly runs: RunRepository,
    private readonly toolManifests: ToolManifestService,
    private readonly models: ModelPolicy = { allowed: [], maxMaxTokens: Number.MAX_SAFE_INTEGER },
    private readonly spend: SpendPolicy | null = null,
    private readonly subWorkflowMaxDepth = 5,
  ) {}

  async prepare(request: RunRequest): Promise<Prepared> {
    // The user's spend is read beside the workflow's rows, and checked where every start checks it.
    const room = this.roomFor(request);
    const record = await this.workflows.find(request.userId, request.workflowUuid);
    if (!record) throw notFound('Workflow', request.workflowUuid);
    // The workflows its sub_workflow steps call, pinned as they are now: later edits never reach this run.
    const definition = await pinSubWorkflows(this.workflows, request.userId, definitionOf(record), this.subWorkflowMaxDepth);
    assertAcceptsRuns(definition, request.origin);
    // Tools changed since the workflow was saved: "fail" refuses here (nothing written), "warn" records it on the run.
    return this.record(request, definition, () => this.toolManifests.driftOf(record), { version: record.version, room });
  }

  /**
   * A run of a definition not saved (the assistant's candidate, under the uuid it will be saved as, as a dry
   * run; a replay against an inline definition): the same rows and input as any run; there is no saved tool
   * manifest to drift from.
   */
  prepareUnsaved(
    request: Omit<RunRequest, 'origin'> & ({ dryRun: true } | { replay: ReplaySource }),
    definition: WorkflowDefinition,
  ): Promise<Prepared> {
    return this.record(request, definition, async () => null);
  }

  /** A run of an earlier version of the workflow (a replay, an evaluation's case): its definition then, recorded as that version's run. */
  prepareVersion(request: Omit<RunRequest, 'origin'>, definition: WorkflowDefinition, version: number) {
    return this.record(request, definition, async () => null, { version });
  }

  /**
   * A run a sub_workflow step starts (`calledBy`), of the definition its parent pinned (the pins passed down);
   * the same rows and input as any run, `created: false` when a retried activity recorded it already.
   */
  prepareChild(
    request: Omit<RunRequest, 'origin' | 'budget'>,
    definition: WorkflowDefinition & { version?: number },
    calledBy: { run_uuid: string; step_uuid: string },
  ): Promise<Prepared> {
    const { version, ...pinned } = definition;
    return this.record(request, pinned, async () => null, { version: version ?? null, calledBy });
  }

  /**
   * Whether the user may start a run that pays: a user whose day or month is spent starts none (a dry run costs
   * nothing). Started at once, awaited by record(); a start refused before that leaves its refusal unread.
   */
  private roomFor(request: Pick<RunRequest, 'userId' | 'dryRun'>): Promise<void> {
    if (request.dryRun || !this.spend) return Promise.resolve();
    const room = this.spend.assertRoomForRun(request.userId);
    room.catch(() => undefined);
    return room;
  }

  private async record(
    request: Omit<RunRequest, 'origin'>,
    definition: WorkflowDefinition,
    driftOf: () => Promise<ToolDrift | null>,
    {
      version = null,
      calledBy,
      room = this.roomFor(request),
    }: { version?: number | null; calledBy?: { run_uuid: string; step_uuid: string }; room?: Promise<void> } = {},
  ): Promise<Prepared> {
    // Saved before MODELS_ALLOWED or MAX_MAX_TOKENS changed: refused now, nothing written.
    throwIssues(modelPolicyIssues(definition.steps, this.models));
    if (!definition.steps.length) throw new DomainError(ErrorCode.ValidationFailed, 'The workflow has no steps to run', { field: 'steps' });
    await room;
    const toolDrift = await driftOf();
    // A start's budget, else the workflow's.
    const budget = request.budget ?? (definition.budget ? budgetLimits(definition.budget) : undefined);

    const instances = definition.steps.map((step) => ({ step_uuid: step.uuid, instance_uuid: randomUUID() }));
    const { created, written } = await this.runs.start({
      ...runIdentity(request, definition),
      workflow_version: version,
      schedule_id: request.scheduleId ?? null,
      dry_run: request.dryRun ?? false,
      budget: budget ?? null,
      tool_drift: toolDrift,
      replay: request.replay ? { of: request.replay.of, offline: request.replay.offline === true } : null,
      ...(calledBy ? { called_by: calledBy } : {}),
      trigger_output: triggerRow(request),
      steps: definition.steps.map((step, i) => ({
        uuid: instances[i].instance_uuid,
        step_definition_uuid: step.uuid,
        step_name: step.name,
        step_type: step.type,
      })),
    });
    if (created)
      return {
        created,
        written,
        run: {
          run_uuid: request.runUuid,
          user_id: request.userId,
          definition,
          instances,
          ...(request.dryRun ? { dry_run: true as const } : {}),
          ...(budget ? { budget } : {}),
          ...(request.replay ? { replay: request.replay } : {}),
        },
      };
    // Already recorded (a repeated delivery, a retried activity): the run as it was stored.
    const existing = await this.runs.find(request.userId, request.runUuid);
    if (!existing) throw new DomainError(ErrorCode.Conflict, `Run ${request.runUuid} belongs to someone else`, { field: 'run_uuid' });
    return { created, run: preparedRunOf(existing) };
  }
}

/** The trigger output's row: as serialized off the loop, or from the value. */
function triggerRow(request: Pick<RunRequest, 'triggerOutput' | 'serializedTrigger'>): NewTriggerOutput {
  if (request.serializedTrigger) {
    const { json, ...shown } = request.serializedTrigger;
    return { uuid: randomUUID(), ...shown, raw_json: json };
  }
  const output = request.triggerOutput;
  return {
    uuid: randomUUID(),
    raw_data: output,
    summary: outputPreview(output),
    markdown_representation: markdownFor(output),
    size_bytes: byteSize(output),
  };
}

/** What every new run records about who started it and what it runs, however it starts (a start, a resume). */
export function runIdentity(
  request: { runUuid: string; userId: string; temporalWorkflowId: string },
  definition: WorkflowDefinition,
): Pick<NewRun, 'uuid' | 'user_id' | 'workflow_uuid' | 'workflow_name' | 'definition' | 'temporal_workflow_id'> {
  return {
    uuid: request.runUuid,
    user_id: request.userId,
    workflow_uuid: definition.uuid,
    workflow_name: definition.name,
    definition,
    temporal_workflow_id: request.temporalWorkflowId,
  };
}

/** The workflow input of a run already recorded: what a repeated start (same key, retried activity) hands to Temporal. */
export function preparedRunOf(run: RunWithSteps): PreparedRun {
  const carried = run.steps.filter((step) => step.carried_from_run_uuid);
  const previous = [...carried].reverse().find((step) => step.output_id);
  return {
    run_uuid: run.uuid,
    user_id: run.user_id,
    definition: run.definition as WorkflowDefinition,
    instances: run.steps.map((step) => ({ step_uuid: step.step_definition_uuid, instance_uuid: step.uuid })),
    ...(run.dry_run ? { dry_run: true as const } : {}),
    ...(run.budget ? { budget: budgetLimits(run.budget) } : {}),
    ...(run.replay_of ? { replay: { of: run.replay_of, ...(run.replay_offline ? { offline: true as const } : {}) } } : {}),
    ...(run.resumed_from_step_uuid
      ? { resume: { from_step_uuid: run.resumed_from_step_uuid, previous_step_uuid: previous?.step_definition_uuid ?? null } }
      : {}),
  };
}
