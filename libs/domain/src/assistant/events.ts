// The assistant's SSE events, as stored in assistant_events and sent as they are (the SSE id is their seq).
import type { AssistantStage } from '@app/contracts';

export type AssistantEventPayload = Record<string, unknown> & { session_id: string; response_type: string; is_final: boolean };

export const assistantEvents = {
  statusChange: (
    session_id: string,
    previous_stage: AssistantStage | null,
    current_stage: AssistantStage,
    node_name: string,
    is_final = false,
  ): AssistantEventPayload => ({
    session_id,
    response_type: 'STATUS_CHANGE',
    is_final,
    status_change: { previous_stage, current_stage, node_name },
  }),
  message: (session_id: string, message: string, is_final = false): AssistantEventPayload => ({
    session_id,
    response_type: 'MESSAGE',
    is_final,
    message,
  }),
  /** `workflow`: the JSON as the model wrote it; once saved, with its uuid, the workflow as saved and whether the save replaced it (`is_edit`). */
  workflow: (
    session_id: string,
    workflow: unknown,
    saved: { workflow_uuid: string; workflow: unknown; is_edit: boolean } | null,
    is_final = false,
  ): AssistantEventPayload => ({
    session_id,
    response_type: 'WORKFLOW',
    is_final,
    workflow,
    ...(saved ? { workflow_uuid: saved.workflow_uuid, saved_workflow: saved.workflow, is_edit: saved.is_edit } : {}),
  }),
  error: (
    session_id: string,
    error: { error_code: string; message: string; details?: unknown; is_recoverable: boolean },
  ): AssistantEventPayload => ({
    session_id,
    response_type: 'ERROR',
    is_final: true,
    error: { details: null, ...error },
  }),
};
