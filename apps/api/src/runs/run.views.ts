// What the API returns for runs: the run with its step instances and their full audit.
import {
  EXECUTIONS_SHOWN_AT_EACH_END,
  type OutputRecord,
  type RunRecord,
  type RunWithSteps,
  type StepWithAudit,
  type StepWithExecutions,
} from '@app/persistence';

export function toOutputView(output: OutputRecord) {
  const { uuid, raw_data, summary, markdown_representation, size_bytes, created_at } = output;
  return { uuid, raw_data, summary, markdown_representation, size_bytes, created_at };
}

const tokensOf = (record: { prompt_tokens: number; completion_tokens: number; total_tokens: number }) => ({
  prompt: record.prompt_tokens,
  completion: record.completion_tokens,
  total: record.total_tokens,
});

const durationOf = (started: Date | null, finished: Date | null) => (started && finished ? finished.getTime() - started.getTime() : null);

export function toRunSummaryView(run: RunRecord, temporalUiUrl: string, namespace: string) {
  return {
    uuid: run.uuid,
    workflow_uuid: run.workflow_uuid,
    workflow_name: run.workflow_name,
    workflow_version: run.workflow_version,
    user_id: run.user_id,
    schedule_id: run.schedule_id,
    parent_run_uuid: run.parent_run_uuid,
    parent_step_uuid: run.parent_step_uuid,
    resumed_from_step_uuid: run.resumed_from_step_uuid,
    dry_run: run.dry_run,
    budget: run.budget,
    // Why a waiting run waits on its user's spend limit (left behind by a run that ended while it waited: not shown).
    spend_pause: run.status === 'awaiting_input' ? run.spend_pause : null,
    status: run.status,
    error_message: run.error_message,
    notification: run.notification,
    tool_drift: run.tool_drift,
    replay_of: run.replay_of,
    replay_offline: run.replay_offline,
    ...(run.messages ? { messages: run.messages } : {}),
    tokens: tokensOf(run),
    // Dollars at the configured prices, summed when the run ends; null while it runs or when a call's model has no price.
    cost: run.cost,
    started_at: run.started_at,
    finished_at: run.finished_at,
    duration_ms: durationOf(run.started_at, run.finished_at),
    temporal: {
      workflow_id: run.temporal_workflow_id,
      ui_url: `${temporalUiUrl}/namespaces/${namespace}/workflows/${encodeURIComponent(run.temporal_workflow_id)}`,
      // The API's page that gives the browser the codec cookie and then opens ui_url, payloads decoded.
      open_in_ui_path: `/temporal-ui?workflow_id=${encodeURIComponent(run.temporal_workflow_id)}`,
    },
  };
}

function toStepView(step: StepWithAudit) {
  return {
    uuid: step.uuid,
    step_definition_uuid: step.step_definition_uuid,
    name: step.step_name,
    type: step.step_type,
    position: step.position,
    status: step.status,
    carried_from_run_uuid: step.carried_from_run_uuid,
    started_at: step.started_at,
    finished_at: step.finished_at,
    duration_ms: step.duration_ms,
    attempts: step.attempts,
    input_data: step.input_data,
    messages: step.messages ?? [],
    output: step.output ? toOutputView(step.output) : null,
    error_message: step.error_message,
    tokens: tokensOf(step),
    cost: step.cost,
    model_calls: step.model_calls.map(({ step_instance_uuid: _s, ...call }) => ({ ...call, tokens: tokensOf(call) })),
    tool_calls: step.tool_calls.map(({ step_instance_uuid: _s, ...call }) => call),
  };
}

/**
 * A looping step (or a graph step, or a looping execution of one) also shows how its loop ended and the rows
 * beneath it: all of them up to twice EXECUTIONS_SHOWN_AT_EACH_END, else the first and the last ones
 * (`iteration_count` says how many ran). A row with nothing beneath it keeps the plain step shape. The API
 * calls every row beneath a step an iteration, as it always has; the code says execution.
 */
export function loopView(step: StepWithExecutions): Record<string, unknown> {
  if (!step.loop_state && !step.execution_count) return {};
  return {
    loop: step.loop_state,
    iteration_count: step.execution_count,
    iterations_shown: step.execution_count > 2 * EXECUTIONS_SHOWN_AT_EACH_END ? `first and last ${EXECUTIONS_SHOWN_AT_EACH_END}` : 'all',
    iterations: step.executions.map((execution) => ({
      iteration: execution.execution_index,
      ...toStepView(execution),
      ...loopView(execution),
    })),
  };
}

export function toRunView(run: RunWithSteps, temporalUiUrl: string, namespace: string) {
  return {
    ...toRunSummaryView(run, temporalUiUrl, namespace),
    trigger_output: run.trigger_output ? toOutputView(run.trigger_output) : null,
    resumed_by: run.resumed_by,
    children: run.children,
    definition: run.definition,
    steps: run.steps.map((step) => ({ ...toStepView(step), ...loopView(step) })),
  };
}
