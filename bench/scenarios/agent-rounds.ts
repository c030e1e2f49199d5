// Floor: an agent's per-round cost at 10 and 50 rounds, on stepwise and on the like-for-like bare agent
// (the same model turn and tool call activities, no API and no MySQL), with ordinary activities and with
// local ones (a chain agent's rounds in stepwise since issue #32). A cost that grows with the
// conversation shows as a 50-round/10-round ratio above 1. While it runs, the model fake asks for as
// many tool calls as the agent's system prompt names (agentPrompt).
import { reply, type ModelFake, type RecordedRequest, type ReplyHandler } from '../../test/support/model-fake';
import { agentPrompt, BENCH_MODEL, BENCH_TOOL, toolCallsAsked, type Runner } from '../support/runner';
import { round } from '../support/stats';
import { stepwiseRunner } from '../support/stepwise.runner';
import type { System } from '../support/system';
import { measureAgent, type AgentResult } from './agent';

export const AGENT_ROUNDS = [10, 50];

export interface AgentRoundsResult {
  rounds: number;
  stepwise: AgentResult;
  bare_agent: AgentResult;
  vs_bare_agent: number;
  bare_local_agent: AgentResult;
  vs_bare_local_agent: number;
  /** The bare local agent with each call's `running` row and answer committed: the floor of any durable audit. */
  audited_local_agent?: AgentResult;
  vs_audited_local_agent?: number;
  /** Asked for (`queuedToo`): the same agent with `execution: "queued"`. */
  stepwise_queued?: AgentResult;
}

/** Tool calls until the conversation has as many answers as its prompt asks for, then a text answer. */
export function roundReplies(request: RecordedRequest) {
  const done = request.body.messages.filter((message) => message.role === 'tool').length;
  const wanted = request.body.tools?.length ? (toolCallsAsked(request.body.messages) ?? 0) : 0;
  return done < wanted ? reply.toolCalls([{ name: BENCH_TOOL, arguments: { call: done } }]) : reply.text('done');
}

/**
 * stepwise's agent with the bench's HTTP tool, asked for `toolCalls` calls; its one-step run is the usual chain.
 * `queued`: every round an ordinary activity, as all of them were before issue #32.
 */
export function stepwiseAgent(system: System, toolUrl: string, queued = false): Runner {
  const chain = stepwiseRunner(system, toolUrl);
  const post = (route: string, body: unknown) =>
    fetch(`${system.apiUrl}${route}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${system.key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  return {
    name: chain.name,
    prepareChain: (steps) => chain.prepareChain(steps),
    async prepareAgent(toolCalls) {
      // The tool may be registered already (scenario 5): a 409 then, and the registered one is used.
      await post('/tools', { name: BENCH_TOOL, description: 'look up', parameters: { type: 'object' }, endpoint_url: toolUrl });
      const agent = {
        type: 'custom_agent',
        name: 'agent',
        model: BENCH_MODEL,
        system_prompt: agentPrompt(toolCalls),
        tools: [BENCH_TOOL],
        max_iterations: toolCalls + 1,
        ...(queued ? { execution: 'queued' } : {}),
      };
      const workflowUuid = await system.createWorkflow([agent]);
      return async () => {
        const result = await system.waitForRun(await system.startRun(workflowUuid));
        if (result.status !== 'completed') throw new Error(`run ended ${result.status}`);
      };
    },
    close: async () => {},
  };
}

export async function measureAgentRounds(input: {
  system: System;
  toolUrl: string;
  model: ModelFake;
  replies: ReplyHandler;
  bareAgent: Runner;
  bareLocalAgent: Runner;
  auditedLocalAgent?: Runner;
  runs: number;
  queuedToo?: boolean;
}): Promise<AgentRoundsResult[]> {
  const ours = stepwiseAgent(input.system, input.toolUrl);
  const queued = stepwiseAgent(input.system, input.toolUrl, true);
  const results: AgentRoundsResult[] = [];
  input.model.respondWith(roundReplies);
  try {
    for (const rounds of AGENT_ROUNDS) {
      const stepwise = await measureAgent(ours, input.runs, 1, rounds);
      const bare = await measureAgent(input.bareAgent, input.runs, 1, rounds);
      const bareLocal = await measureAgent(input.bareLocalAgent, input.runs, 1, rounds);
      const audited = input.auditedLocalAgent && (await measureAgent(input.auditedLocalAgent, input.runs, 1, rounds));
      results.push({
        rounds,
        stepwise,
        bare_agent: bare,
        vs_bare_agent: round(stepwise.per_tool_call_round_ms / bare.per_tool_call_round_ms, 2),
        bare_local_agent: bareLocal,
        vs_bare_local_agent: round(stepwise.per_tool_call_round_ms / bareLocal.per_tool_call_round_ms, 2),
        ...(audited
          ? {
              audited_local_agent: audited,
              vs_audited_local_agent: round(stepwise.per_tool_call_round_ms / audited.per_tool_call_round_ms, 2),
            }
          : {}),
        ...(input.queuedToo ? { stepwise_queued: await measureAgent(queued, input.runs, 1, rounds) } : {}),
      });
    }
  } finally {
    input.model.respondWith(input.replies);
  }
  return results;
}

/** Per-round cost at the most rounds over the fewest: 1 when a round costs the same however long the conversation. */
export function growth(results: AgentRoundsResult[], runner: 'stepwise' | 'bare_agent' | 'bare_local_agent'): number {
  const [first, last] = [results[0], results.at(-1)!];
  return round(last[runner].per_tool_call_round_ms / first[runner].per_tool_call_round_ms, 2);
}
