// Stage 1 (clarification): the model answers JSON saying what it understood and either
// one question for the person or that it is ready to write the workflow.
import { ASSISTANT_CONVERSATION_EXCHANGES, type ChatMessage } from '@app/contracts';

export interface Clarification {
  intent_summary: string;
  /** null: ready to generate. */
  clarification_question: string | null;
}

export const CLARIFICATION_PROMPT = [
  'You help a person describe an automated LLM workflow for stepwise. Read the conversation and answer one JSON object:',
  '{"intent_summary": "what the workflow must do, in a few sentences", "clarification_question": "one short question" | null, "ready": true | false}.',
  'Ask a question only when an answer would change the workflow (its input, its steps, the tools it needs); otherwise set ready to true and clarification_question to null.',
].join('\n');

/** What the clarifier is told besides the conversation: what it understood, and what the session is changing. */
export function clarificationContext(intentSummary: string, editing: boolean, lastTurnFailed: boolean): string {
  const lines = [CLARIFICATION_PROMPT, `What you understood so far: ${intentSummary || '(nothing yet)'}`];
  if (editing)
    lines.push(
      'The workflow has been saved: what the person says now changes it. intent_summary describes the whole workflow as it must be after the change.',
    );
  if (lastTurnFailed)
    lines.push('The last attempt to write the workflow failed (the conversation says why): the person may answer how to fix it.');
  return lines.join('\n');
}

/** The model's answer as a Clarification; an answer that is not the JSON asked for counts as one question (its text). */
export function parseClarification(content: string | null): Clarification {
  try {
    const value = JSON.parse(content ?? '') as Record<string, unknown>;
    const question =
      typeof value.clarification_question === 'string' && value.clarification_question.trim() && value.ready !== true
        ? value.clarification_question.trim()
        : null;
    return { intent_summary: typeof value.intent_summary === 'string' ? value.intent_summary : '', clarification_question: question };
  } catch {
    return { intent_summary: '', clarification_question: (content ?? '').trim() || 'Could you describe the workflow you want?' };
  }
}

/** The last ASSISTANT_CONVERSATION_EXCHANGES exchanges (a person's message and the answer to it) as chat messages. */
export function recentConversation(
  entries: readonly { role: 'user' | 'assistant'; text: string }[],
  exchanges = ASSISTANT_CONVERSATION_EXCHANGES,
): ChatMessage[] {
  const userAt = entries.flatMap((entry, i) => (entry.role === 'user' ? [i] : []));
  const start = userAt.length > exchanges ? userAt[userAt.length - exchanges] : 0;
  return entries.slice(start).map(({ role, text }) => ({ role, content: text }));
}
