// Stages 1 and 2: the assistant's model calls. Each is one activity whose answer is stored with the
// session's changes, so a retry after the answer was stored never pays for the call again.
import { Injectable } from '@nestjs/common';
import { AppConfig } from '@app/config';
import {
  type AssistantCallRef,
  type AssistantToolCall,
  type ChatMessage,
  type ClarifyResult,
  type GenerateResult,
  type TokenUsage,
} from '@app/contracts';
import {
  assistantEvents,
  candidateOf,
  clarificationContext,
  generationPrompt,
  generationRequest,
  parseClarification,
  recentConversation,
} from '@app/domain';
import type { AssistantSessionRecord } from '@app/persistence';
import { ModelClients, type ModelRequest } from '@app/providers';
import type { ActivityScope } from '../execution/activity-scope';
import { AssistantBases } from './assistant-bases';
import { AssistantStore } from './assistant-store';
import { AssistantTools } from './assistant-tools';

const tokensOf = (usage: TokenUsage) => ({ prompt: usage.prompt_tokens, completion: usage.completion_tokens });

/** A tool call past ASSISTANT_MAX_TOOL_CALLS_PER_ANSWER (`max`), answered without being run. */
const refusedCall = (call: AssistantToolCall, max: number): ChatMessage => ({
  role: 'tool',
  tool_call_id: call.id,
  name: call.name,
  content: JSON.stringify({ error: { code: 'TOO_MANY_TOOL_CALLS', message: `not run: at most ${max} tool calls per answer` } }),
});

@Injectable()
export class AssistantModelService {
  constructor(
    private readonly store: AssistantStore,
    private readonly models: ModelClients,
    private readonly tools: AssistantTools,
    private readonly bases: AssistantBases,
    private readonly config: AppConfig,
  ) {}

  private ask(session: AssistantSessionRecord, request: Omit<ModelRequest, 'model'>, scope: ActivityScope) {
    // The session's provider and model, else DEFAULT_PROVIDER and ASSISTANT_MODEL (checked when the session was made).
    const client = this.models.forProvider(session.provider ?? this.config.providers.default);
    return client.complete({ model: session.model ?? this.config.assistant.model, ...request }, { signal: scope.signal });
  }

  /**
   * Stage 1: one question for the person, or ready: the generation conversation then starts from the workflow
   * the session works on as it is now, and from the attempt a failed turn left.
   */
  clarify(ref: AssistantCallRef, turn: number, scope: ActivityScope): Promise<ClarifyResult> {
    return this.store.once<ClarifyResult>(ref, async (session) => {
      const context: ChatMessage = {
        role: 'system',
        content: clarificationContext(session.intent_summary, session.workflow_uuid !== null, session.previous_stage === 'failed'),
      };
      const response = await this.ask(
        session,
        { messages: [context, ...recentConversation(session.conversations)], response_format: { type: 'json_object' } },
        scope,
      );
      const answer = parseClarification(response.message.content);
      const tokens = tokensOf(response.usage);
      const intent_summary = answer.intent_summary || session.intent_summary;
      if (answer.clarification_question) {
        const entry = { role: 'assistant' as const, text: answer.clarification_question, turn, at: new Date().toISOString() };
        return {
          result: { ready: false },
          change: {
            intent_summary,
            pending_questions: [answer.clarification_question],
            conversations: [...session.conversations, entry],
            tokens,
          },
          events: [assistantEvents.message(session.uuid, answer.clarification_question, true)],
        };
      }
      const start = await this.bases.load(session);
      const generation: ChatMessage[] = [
        { role: 'system', content: generationPrompt(this.config.assistant) },
        { role: 'user', content: generationRequest(intent_summary, start?.base ?? null, session.failed_attempt) },
      ];
      const base_fingerprint = start?.base.as === 'edit' ? start.fingerprint : null;
      return {
        result: { ready: true },
        change: {
          intent_summary,
          pending_questions: [],
          generation,
          candidate: null,
          base_fingerprint,
          stage: 'workflow_generation',
          tokens,
        },
        events: [assistantEvents.statusChange(session.uuid, session.stage, 'workflow_generation', 'workflow_generation')],
      };
    });
  }

  /** Stage 2: one call of the generation conversation; an answer without tool calls is the candidate. */
  generate(ref: AssistantCallRef & { with_tools: boolean }, scope: ActivityScope): Promise<GenerateResult> {
    return this.store.once<GenerateResult>(ref, async (session) => {
      const response = await this.ask(session, { messages: session.generation, tools: ref.with_tools ? this.tools.specs() : [] }, scope);
      const message: ChatMessage = ref.with_tools ? response.message : { role: 'assistant', content: response.message.content };
      const generation = [...session.generation, message];
      const tokens = tokensOf(response.usage);
      const calls = ref.with_tools ? (message.tool_calls ?? []) : [];
      const max = this.config.assistant.maxToolCallsPerAnswer;
      const refused = calls.slice(max).map((call) => refusedCall(call, max));
      if (calls.length)
        return {
          result: { tool_calls: calls.slice(0, max) },
          change: { generation: [...generation, ...refused], tokens },
        };
      const parsed = candidateOf(message.content);
      const candidate = 'value' in parsed ? parsed.value : null;
      return {
        result: { tool_calls: [] },
        change: { generation, tokens, candidate, stage: 'validation' },
        events: [
          ...(candidate ? [assistantEvents.workflow(session.uuid, candidate, null)] : []),
          assistantEvents.statusChange(session.uuid, session.stage, 'validation', 'validation'),
        ],
      };
    });
  }
}
