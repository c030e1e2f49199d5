// An agent step's turns: one activity per model turn and one per tool call, so a crash repeats neither. In a
// chain they run as local activities (scope.agentWork), tool calls not known to be short excepted: a local
// activity run again after its worker died finds the turn or call its first run completed in the transcript.
// Since rounds were folded (patch 'agent-round-tool-calls'), a local turn also runs the short calls its answer
// asks for, in the same activity: a round is one local activity instead of two; since they share an activity
// (patch 'agent-rounds-share-activity'), the rounds of short calls that follow run in it too, and since
// 'agent-turns-complete', a final answer reached there completes the step in it (no activity of its own), and
// since 'agent-start-runs-turns' a chain agent's start runs on into those turns: an agent whose tools are all
// short is one local activity.
import { ApplicationFailure, patched } from '@temporalio/workflow';
import {
  END_TOOL_NAME,
  type AgentStart,
  type CustomAgentStep,
  type StepResultRef,
  type StepContext,
  type ToolHandoff,
} from '@app/contracts';
import type { RunScope } from './run-scope';
import { callWorkflowTool } from './workflow-tool';

const DEFAULT_MAX_ITERATIONS = 10;

export type AgentEnd = { ref: StepResultRef } | { handoff: ToolHandoff };

/** An agent that runs its own tool calls, from its first turn to its final answer. */
export async function runAgent(scope: RunScope, step: CustomAgentStep, context: StepContext): Promise<StepResultRef> {
  const end = await agentTurns(scope, step, context, await startAgent(scope, step, context, false), false);
  return (end as { ref: StepResultRef }).ref;
}

/**
 * The agent's start; a local one's runs on into its first turns where its tools are short (AgentStart.first_turns),
 * and where the step ends the chain (`endsRun`) records the run's end once they completed it (AgentStart.run_ended).
 */
export async function startAgent(
  scope: RunScope,
  step: CustomAgentStep,
  context: StepContext,
  handsOff: boolean,
  endsRun = false,
): Promise<AgentStart> {
  const startsTurns = !handsOff && scope.localAgentTurns(step) && patched('agent-start-runs-turns');
  const turns = startsTurns ? { turns: { last_turn: maxIterationsOf(step), ...(endsRun ? { ends_run: true as const } : {}) } } : {};
  const start = await scope.agentWork(step).startAgentStep({ ...context, step, ...turns });
  if (start.run_ended) scope.counters.completedRecorded = true;
  return start;
}

const maxIterationsOf = (step: CustomAgentStep) => step.max_iterations ?? DEFAULT_MAX_ITERATIONS;

/**
 * An agent's turns until its final answer. `handsOff` (a graph agent with an edge to a tool executor):
 * the first tool calls end the execution and go to the tool executor instead of running here.
 */
export async function agentTurns(
  scope: RunScope,
  step: CustomAgentStep,
  context: StepContext,
  { tools, conversation_length, local_tools, workflow_tools, first_turns }: AgentStart,
  handsOff: boolean,
): Promise<AgentEnd> {
  // The transcript itself stays in MySQL: the workflow tracks its length and the calls to make.
  let length = conversation_length;
  const maxIterations = maxIterationsOf(step);
  const short = new Set(local_tools ?? []);
  // The patch is asked only where a turn is local: a queued turn's tool calls stay activities of their own.
  const folded = !handsOff && short.size > 0 && scope.localAgentTurns(step) && patched('agent-round-tool-calls');
  // Rounds of short calls follow one another in one local activity: no workflow task between them.
  const shared = folded && patched('agent-rounds-share-activity');
  const completes = shared && patched('agent-turns-complete');
  // The turns the start's activity ran on into, if any: the first result, no activity of its own.
  let ranWithStart = first_turns;
  for (let turn = 1; turn <= maxIterations; turn++) {
    const result =
      ranWithStart ??
      (await scope.agentWork(step, `${step.name}: ${shared ? 'model turns from' : 'model turn'} ${turn}`).agentTurn({
        ...context,
        step,
        tools,
        turn,
        conversation_length: length,
        ...(folded ? { short_tools: [...short] } : {}),
        ...(shared ? { last_turn: maxIterations } : {}),
        ...(completes ? { complete: true as const } : {}),
      }));
    ranWithStart = undefined;
    if (shared && result.turn) turn = result.turn;
    length = result.conversation_length;
    // The end tool runs like any other (audited, answered); the conversation closes once the turn has answered.
    if (context.conversation_turn !== undefined && result.tool_calls.some((call) => call.name === END_TOOL_NAME))
      scope.counters.endRequested = true;
    if (!result.tool_calls.length) {
      return {
        ref: result.completed ?? (await scope.agentWork(step).completeAgentStep({ ...context, step, conversation_length: length })),
      };
    }
    if (handsOff) {
      await scope
        .activitiesFor(step, `${step.name}: hand ${result.tool_calls.length} tool call(s) over`)
        .handOffToolCalls({ ...context, tool_calls: result.tool_calls });
      return {
        handoff: {
          caller_step_uuid: step.uuid,
          conversation: { instance_uuid: context.instance_uuid, conversation_length: length },
          calls: result.tool_calls,
          ...(workflow_tools ? { workflow_tools } : {}),
        },
      };
    }
    // Each tool call is its own activity: once completed, a crash never repeats it. A long one is queued.
    for (const call of result.tool_calls.slice(result.tool_calls_run ?? 0)) {
      // A workflow tool runs as a child run; only agents that have one take this path (starts before it have none).
      const workflowUuid = workflow_tools?.[call.name];
      if (workflowUuid && patched('agent-workflow-tools')) {
        await callWorkflowTool(scope, step, context, call, length, workflowUuid);
        length += 1;
        continue;
      }
      await scope
        .agentWork(step, `${step.name}: tool ${call.name}`, short.has(call.name))
        .callTool({ ...context, step, call, position: length });
      length += 1;
    }
  }
  throw ApplicationFailure.nonRetryable(
    `Agent step "${step.name}" reached max_iterations (${maxIterations}) without a final answer`,
    'MaxIterationsReached',
  );
}
