// One activation's work, by step type: the step's output, or (tool hand-offs, stop checkers) the
// activations that follow it directly.
import { ApplicationFailure, patched } from '@temporalio/workflow';
import type {
  TranscriptRef,
  CustomAgentStep,
  EdgeDefinition,
  StepResultRef,
  LoopingStep,
  StepContext,
  StepDefinition,
  ToolExecutorStep,
  ToolHandoff,
} from '@app/contracts';
import { agentTurns, startAgent } from '../agent-turns';
import { endsChain, runChainLlmStep } from './chain-steps';
import { afterToolCalls, nextTargets } from './routing';
import { runHumanInput } from '../human-input-step';
import { runLoop } from '../loop-step';
import { runSubWorkflow } from '../sub-workflow-step';
import { callWorkflowTool } from '../workflow-tool';
import type { Activation } from './walk-plan';
import { loopCarry, type WalkState } from './walk-state';

const loopOf = (step: StepDefinition): LoopingStep | null =>
  (step.type === 'custom_llm' || step.type === 'custom_agent' || step.type === 'sub_workflow') && step.loop ? step : null;

/** `executorEdge`: an agent's edge to a tool executor; `label`: the activities' name in the Web UI. */
export async function runStep(
  state: WalkState,
  step: StepDefinition,
  context: StepContext,
  { previous_step_uuid, handoff, continues, reason, guard_rail, loop }: Activation,
  executorEdge: EdgeDefinition | null,
  label: string | undefined,
): Promise<StepResultRef | Activation[]> {
  const { scope } = state;
  const looping = loopOf(step);
  if (looping) return await runLoop(scope, looping, context, loop ?? null, loopCarry(state, context));
  switch (step.type) {
    case 'custom_llm':
      return await runChainLlmStep(state, step, context, label);
    case 'custom_agent': {
      const ran = await runGraphAgent(state, step, context, continues, executorEdge);
      return 'step_uuid' in ran ? [ran] : ran;
    }
    case 'tool_executor':
      return await runToolExecutor(state, step, context, handoff);
    case 'human_input':
      return await runHumanInput(scope, step, context, reason, guard_rail);
    case 'sub_workflow':
      return await runSubWorkflow(scope, step, context);
    case 'stop_checker': {
      const check = await scope.stepWork(step, label).runStopChecker({ ...context, step });
      if (check.stopped) state.stopped ??= check.reason;
      // A stop checker produces no output: $previous_output still means the step before it.
      return check.stopped
        ? []
        : nextTargets(state.plan.graph, step.uuid, { route: null, conditions_held: [] }).map((target) => ({
            step_uuid: target,
            previous_step_uuid,
          }));
    }
  }
}

/**
 * A graph agent: runs its turns (going on with its transcript when back from a tool executor), or hands its
 * tool calls over along `executorEdge`, its edge to a tool executor if it has one.
 */
async function runGraphAgent(
  state: WalkState,
  step: CustomAgentStep,
  context: StepContext,
  continues: TranscriptRef | undefined,
  executorEdge: EdgeDefinition | null,
): Promise<StepResultRef | Activation> {
  const { scope } = state;
  const start = continues
    ? await scope.agentWork(step).continueAgentStep({ ...context, step, from: continues })
    : await startAgent(scope, step, context, executorEdge !== null, endsChain(state, step));
  const end = await agentTurns(scope, step, context, start, executorEdge !== null);
  return 'ref' in end ? end.ref : { step_uuid: executorEdge!.target_step_uuid!, previous_step_uuid: step.uuid, handoff: end.handoff };
}

/**
 * A tool executor runs the calls handed to it, each its own activity (audited under its execution, the
 * answer put in the caller's transcript; a workflow tool's call a child run of the executor), then routes by the tool executor's tiers (see routing.ts). Going
 * back to the caller continues the caller's transcript.
 */
async function runToolExecutor(
  state: WalkState,
  step: ToolExecutorStep,
  context: StepContext,
  handoff: ToolHandoff | undefined,
): Promise<Activation[]> {
  if (!handoff)
    throw ApplicationFailure.nonRetryable(
      `Tool executor "${step.name}" was reached without tool calls: only an agent's tool calls activate it`,
      'NoToolCalls',
    );
  const { activitiesFor } = state.scope;
  const caller = state.byUuid.get(handoff.caller_step_uuid) as CustomAgentStep;
  const transcriptUuid = handoff.conversation.instance_uuid;
  await activitiesFor(step, `${step.name}: from ${caller.name}`).startToolExecutor({ ...context, handoff });
  let position = handoff.conversation.conversation_length;
  for (const call of handoff.calls) {
    // A workflow tool runs as a child run, as in the agent's own loop; executors before this answered it "no tool named".
    const workflowUuid = handoff.workflow_tools?.[call.name];
    if (workflowUuid && patched('graph-workflow-tools')) {
      await callWorkflowTool(state.scope, caller, context, call, position, workflowUuid, { step, transcript_uuid: transcriptUuid });
      position += 1;
      continue;
    }
    await activitiesFor(caller, `${step.name}: tool ${call.name}`).callTool({
      ...context,
      step: caller,
      call,
      position,
      conversation_uuid: transcriptUuid,
    });
    position += 1;
  }
  const results = await activitiesFor(step).completeToolExecutor({ ...context, handoff });
  state.news.outputOf(step.uuid, results.digest);
  const next = afterToolCalls(
    state.plan.graph,
    step.uuid,
    handoff.calls.map((call) => call.name),
  );
  const targets = next.to_caller ? [caller.uuid] : next.targets;
  const continues = { instance_uuid: transcriptUuid, conversation_length: position };
  return targets.map((target) => ({ step_uuid: target, previous_step_uuid: step.uuid, ...(target === caller.uuid ? { continues } : {}) }));
}
