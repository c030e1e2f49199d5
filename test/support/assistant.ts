// What the assistant specs share: sessions, messages as SSE streams, and the model's scripted answers.
import { randomUUID } from 'node:crypto';
import type { ApiClient } from './api';
import { llmStep } from './factories';
import { reply, type FakeReply } from './model-fake';
import { openSse, type SseEvent, type SseStream } from './sse';

export async function newSession(user: ApiClient, body: Record<string, unknown> = { mode: 'create' }): Promise<string> {
  const created = await user.post('/assistant/sessions', body);
  if (created.status !== 201) throw new Error(`POST /assistant/sessions: ${created.status} ${JSON.stringify(created.body)}`);
  return created.body.uuid;
}

export const sendMessage = (user: ApiClient, session: string, text: string): Promise<SseStream> =>
  openSse(`${user.baseUrl}/assistant/sessions/${session}/messages`, { method: 'POST', key: user.key!, body: { text } });

export const followEvents = (user: ApiClient, session: string, lastEventId?: number): Promise<SseStream> =>
  openSse(`${user.baseUrl}/assistant/sessions/${session}/events`, {
    key: user.key!,
    headers: lastEventId === undefined ? {} : { 'last-event-id': String(lastEventId) },
  });

/** An event as `TYPE` or `TYPE:previous>current` for a STATUS_CHANGE: what a sequence assertion compares. */
export const shapeOf = ({ data }: SseEvent): string =>
  data.response_type === 'STATUS_CHANGE'
    ? `STATUS_CHANGE:${data.status_change.previous_stage}>${data.status_change.current_stage}`
    : data.response_type;

export const clarifier = {
  asks: (question: string, intent = 'Summarise articles'): FakeReply =>
    reply.json({ intent_summary: intent, clarification_question: question, ready: false }),
  ready: (intent = 'Summarise English articles in three bullet points'): FakeReply =>
    reply.json({ intent_summary: intent, clarification_question: null, ready: true }),
};

/** A two-step chain as the model writes it; `broken` makes its second step read a step that does not exist. */
export function chainCandidate(
  name = `assistant-${randomUUID().slice(0, 8)}`,
  broken = false,
): { name: string; description: string; steps: Record<string, unknown>[] } {
  const first = llmStep({ name: 'summarise', system_prompt: 'Summarise <<trigger_output.text>>' });
  const reads = broken ? randomUUID() : first.uuid;
  const second = llmStep({ name: 'translate', system_prompt: `Translate <<step_output.${reads}>>` });
  return { name, description: 'written by the assistant', steps: [first, second] };
}

/** The events of a create turn that validates, dry-runs and saves at the first attempt. */
export const SAVED_AT_FIRST_ATTEMPT = [
  'STATUS_CHANGE:clarification>workflow_generation',
  'WORKFLOW',
  'STATUS_CHANGE:workflow_generation>validation',
  'STATUS_CHANGE:validation>dry_run',
  'STATUS_CHANGE:dry_run>saving',
  'WORKFLOW',
  'STATUS_CHANGE:saving>completed',
];
