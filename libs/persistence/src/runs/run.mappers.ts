// Rows of the run tables as the rest of the code sees them: each record built field by field from its
// entity, so what leaves persistence is what the record types say (no spread of an entity, no cast of a
// whole row). The casts left narrow a column to the type it was written with.
import type { BudgetState, ConversationMessage, RunStatus, StepStatus } from '@app/contracts';
import type { ToolDrift } from '@app/domain';
import type { ModelCallEntity, RunEntity, StepInstanceEntity, StepOutputEntity, ToolCallEntity } from './run.entities';
import type {
  CallStatus,
  LoopState,
  ModelCallRecord,
  NotificationRecord,
  OutputRecord,
  RunRecord,
  StepInstanceRecord,
  ToolCallRecord,
  SpendPause,
} from './run.records';

export function runOf(row: RunEntity): RunRecord {
  return {
    uuid: row.uuid,
    user_id: row.user_id,
    workflow_uuid: row.workflow_uuid,
    workflow_name: row.workflow_name,
    workflow_version: row.workflow_version,
    status: row.status as RunStatus,
    definition: row.definition,
    trigger_output_id: row.trigger_output_id,
    temporal_workflow_id: row.temporal_workflow_id,
    schedule_id: row.schedule_id,
    parent_run_uuid: row.parent_run_uuid,
    parent_step_uuid: row.parent_step_uuid,
    resumed_from_step_uuid: row.resumed_from_step_uuid,
    dry_run: row.dry_run,
    budget: row.budget as BudgetState | null,
    spend_pause: row.spend_pause as SpendPause | null,
    error_message: row.error_message,
    notification: row.notification as NotificationRecord | null,
    tool_drift: row.tool_drift as ToolDrift | null,
    replay_of: row.replay_of,
    replay_offline: row.replay_offline,
    // Absent when the query did not load it (lists leave the conversation out).
    ...(row.conversation_messages !== undefined ? { messages: row.conversation_messages as ConversationMessage[] | null } : {}),
    prompt_tokens: row.prompt_tokens,
    completion_tokens: row.completion_tokens,
    total_tokens: row.total_tokens,
    cost: row.cost,
    started_at: row.started_at,
    finished_at: row.finished_at,
    created_at: row.created_at,
  };
}

export function stepInstanceOf(row: StepInstanceEntity): StepInstanceRecord {
  return {
    uuid: row.uuid,
    run_uuid: row.run_uuid,
    step_definition_uuid: row.step_definition_uuid,
    step_name: row.step_name,
    step_type: row.step_type,
    position: row.position,
    status: row.status as StepStatus,
    input_data: row.input_data,
    messages: row.model_messages,
    output_id: row.output_id,
    carried_from_run_uuid: row.carried_from_run_uuid,
    error_message: row.error_message,
    attempts: row.attempts,
    prompt_tokens: row.prompt_tokens,
    completion_tokens: row.completion_tokens,
    total_tokens: row.total_tokens,
    cost: row.cost,
    duration_ms: row.duration_ms,
    started_at: row.started_at,
    finished_at: row.finished_at,
    parent_instance_uuid: row.parent_instance_uuid,
    execution_index: row.execution_index,
    loop_state: row.loop_state as LoopState | null,
  };
}

export function outputOf(row: StepOutputEntity): OutputRecord {
  return {
    uuid: row.uuid,
    run_uuid: row.run_uuid,
    user_id: row.user_id,
    step_instance_uuid: row.step_instance_uuid,
    raw_data: row.raw_data,
    summary: row.summary,
    markdown_representation: row.markdown_representation,
    size_bytes: row.size_bytes,
    created_at: row.created_at,
  };
}

export function modelCallOf(row: ModelCallEntity): ModelCallRecord {
  return {
    uuid: row.uuid,
    run_uuid: row.run_uuid,
    step_instance_uuid: row.step_instance_uuid,
    turn: row.turn,
    attempt: row.attempt,
    provider: row.provider,
    model: row.model,
    request_hash: row.request_hash,
    status: row.status as CallStatus,
    error_message: row.error_message,
    request: row.request,
    response: row.response,
    replayed_from: row.replayed_from,
    prompt_tokens: row.prompt_tokens,
    completion_tokens: row.completion_tokens,
    cached_tokens: row.cached_tokens,
    total_tokens: row.total_tokens,
    cost: row.cost,
    cached_from: row.cached_from,
    duration_ms: row.duration_ms,
    started_at: row.started_at,
    finished_at: row.finished_at,
  };
}

export function toolCallOf(row: ToolCallEntity): ToolCallRecord {
  return {
    uuid: row.uuid,
    run_uuid: row.run_uuid,
    step_instance_uuid: row.step_instance_uuid,
    tool_call_id: row.tool_call_id,
    attempt: row.attempt,
    tool_name: row.tool_name,
    mcp_server: row.mcp_server,
    input: row.input,
    output: row.output,
    replayed_from: row.replayed_from,
    status: row.status as CallStatus,
    error_message: row.error_message,
    duration_ms: row.duration_ms,
    started_at: row.started_at,
    finished_at: row.finished_at,
  };
}
