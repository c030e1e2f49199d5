import type { ChatMessage, ToolSpec } from '@app/contracts';
import type { ModelClient } from '@app/providers';
import { BENCH_MODEL, BENCH_TOOL } from '../support/runner';

const AGENT_TOOLS: ToolSpec[] = [{ name: BENCH_TOOL, description: 'look up', parameters: { type: 'object' } }];

/** The two activity kinds of an agent round, as stepwise has them: a model turn over the conversation, a tool call. */
export interface BareAgentActivities {
  modelTurn(messages: ChatMessage[]): Promise<ChatMessage>;
  toolCall(argumentsJson: string): Promise<unknown>;
}

export function createBareAgentActivities(model: ModelClient, toolUrl: string): BareAgentActivities {
  return {
    async modelTurn(messages) {
      return (await model.complete({ model: BENCH_MODEL, messages, tools: AGENT_TOOLS })).message;
    },
    async toolCall(argumentsJson) {
      const response = await fetch(toolUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: argumentsJson });
      return response.json();
    },
  };
}
