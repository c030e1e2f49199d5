// Scenario 5: an agent step making 10 tool calls against a local tool server. A tool-call round is one
// model turn plus one tool call; its overhead is (agent run - one-step run) / 10.
import type { Runner } from '../support/runner';
import { median, round, timedRuns } from '../support/stats';

export const AGENT_TOOL_CALLS = 10;

export interface AgentResult {
  tool_calls: number;
  agent_run_ms: number;
  one_step_run_ms: number;
  per_tool_call_round_ms: number;
}

export async function measureAgent(runner: Runner, runs: number, warmup: number, toolCalls = AGENT_TOOL_CALLS): Promise<AgentResult> {
  const agent = await runner.prepareAgent(toolCalls);
  const oneStep = await runner.prepareChain(1);
  const time = async (runOnce: () => Promise<void>) => median(await timedRuns(runOnce, runs, warmup));
  const agentMs = await time(agent);
  const oneStepMs = await time(oneStep);
  return {
    tool_calls: toolCalls,
    agent_run_ms: agentMs,
    one_step_run_ms: oneStepMs,
    per_tool_call_round_ms: round((agentMs - oneStepMs) / toolCalls),
  };
}
