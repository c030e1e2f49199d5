// Floor baselines: the bare chain with local activities (no task-queue round trip per step), and a bare
// agent whose rounds are the same activity kinds as stepwise's (model turn with tools over the whole
// conversation, then the tool call), ending when the model answers without tool calls: with ordinary
// activities, and with local ones (what a chain agent's rounds are in stepwise since issue #32).
import { proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { ChatMessage } from '@app/contracts';
import type { BareActivities } from './bare.activities';
import type { BareAgentActivities } from './bare-agent.activities';
import { agentPrompt } from '../support/runner';

export { bareChain } from './bare.workflow';

const local = proxyLocalActivities<BareActivities>({ startToCloseTimeout: '1 minute' });
const queuedRounds = proxyActivities<BareAgentActivities>({ startToCloseTimeout: '1 minute' });
const localRounds = proxyLocalActivities<BareAgentActivities>({ startToCloseTimeout: '1 minute' });

export async function bareLocalChain(steps: number): Promise<void> {
  for (let i = 0; i < steps; i++) await local.callModel(i);
}

async function agentLoop({ modelTurn, toolCall }: BareAgentActivities, toolCalls: number): Promise<void> {
  let messages: ChatMessage[] = [
    { role: 'system', content: agentPrompt(toolCalls) },
    { role: 'user', content: 'Execute your task.' },
  ];
  for (;;) {
    const message = await modelTurn(messages);
    messages = [...messages, message];
    if (!message.tool_calls?.length) return;
    for (const call of message.tool_calls) {
      const output = await toolCall(call.arguments);
      messages = [...messages, { role: 'tool', tool_call_id: call.id, content: JSON.stringify(output) }];
    }
  }
}

export async function bareToolAgent(toolCalls: number): Promise<void> {
  await agentLoop(queuedRounds, toolCalls);
}

export async function bareLocalToolAgent(toolCalls: number): Promise<void> {
  await agentLoop(localRounds, toolCalls);
}
