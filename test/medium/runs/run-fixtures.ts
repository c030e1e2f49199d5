// Rows the run specs write through the repository: a saved workflow with its run, and call attempts.
import type { FinalStatus, GuardRailHit } from '@app/contracts';
import type { NewRun, RunRepository, WorkflowRepository } from '@app/persistence';
import { runEnding } from '@app/runs';
import { llmStep, newRun, newUserId, noTools, workflowDefinition } from '../support/fixtures';
import type { CallAuditRepository } from '@app/persistence';

type ModelCallFields = Parameters<CallAuditRepository['recordModelCall']>[0];
type ToolCallFields = Parameters<CallAuditRepository['recordToolCall']>[0];

export interface SavedWorkflow {
  userId: string;
  workflowUuid: string;
  /** A run of it, not yet recorded. */
  run: NewRun;
  /** Another run of it, not yet recorded. */
  anotherRun(): NewRun;
}

/** A new user's saved workflow of `stepCount` LLM steps. */
export async function workflowWithRun(workflows: WorkflowRepository, stepCount = 2): Promise<SavedWorkflow> {
  const userId = newUserId();
  const definition = workflowDefinition(Array.from({ length: stepCount }, () => llmStep()));
  await workflows.create(userId, definition, 'secret', noTools);
  return { userId, workflowUuid: definition.uuid, run: newRun(userId, definition), anotherRun: () => newRun(userId, definition) };
}

/** An attempt of the step's model call `turn`; completed with 10 + 5 tokens unless told otherwise. */
export function modelCall(run: NewRun, instanceUuid: string, fields: Partial<ModelCallFields> = {}): ModelCallFields {
  const usage =
    fields.status === 'running' || fields.status === 'failed'
      ? { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0, cached_tokens: 0, cost: null, cached_from: null }
      : { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15, cached_tokens: 0, cost: 0.0001, cached_from: null };
  return {
    run_uuid: run.uuid,
    step_instance_uuid: instanceUuid,
    turn: 1,
    attempt: 1,
    provider: 'openai',
    model: 'test-model',
    request_hash: null,
    status: 'completed',
    error_message: null,
    request: { model: 'test-model', message_count: 2 },
    response: null,
    ...usage,
    duration_ms: 12,
    started_at: new Date(),
    finished_at: null,
    ...fields,
  };
}

export function toolCall(run: NewRun, instanceUuid: string, fields: Partial<ToolCallFields> = {}): ToolCallFields {
  return {
    run_uuid: run.uuid,
    step_instance_uuid: instanceUuid,
    tool_call_id: 'call_medium',
    attempt: 1,
    tool_name: 'get_output',
    input: {},
    output: null,
    status: 'running',
    error_message: null,
    duration_ms: null,
    started_at: new Date(),
    finished_at: null,
    ...fields,
  };
}

/** Ends a run as its workflow does: the rules of libs/runs (runEnding), executed by the run's repository. */
export const endRun = (
  runs: Pick<RunRepository, 'end'>,
  runUuid: string,
  status: FinalStatus,
  errorMessage: string | null,
  guardRail?: GuardRailHit,
): Promise<boolean> => runs.end(runEnding(runUuid, { status, error_message: errorMessage, guard_rail: guardRail }));
