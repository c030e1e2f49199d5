import type { AssistantSessionRecord } from '@app/persistence';

/**
 * A session as GET /assistant/sessions/{uuid} answers it (its workflow_agent_states row, tokens summed);
 * `is_open`: it takes the next message (after a save, that message edits workflow_uuid).
 */
export function toSessionView(session: AssistantSessionRecord) {
  const {
    user_id: _user,
    generation: _generation,
    candidate: _candidate,
    base_fingerprint: _base,
    failed_attempt: _failed,
    prompt_tokens,
    completion_tokens,
    ...fields
  } = session;
  return { ...fields, tokens: { prompt: prompt_tokens, completion: completion_tokens, total: prompt_tokens + completion_tokens } };
}

export type SessionView = ReturnType<typeof toSessionView>;
