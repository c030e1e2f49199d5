// The activities of the run workflow: thin adapters that give each service an abort signal and the
// attempt number, keep the activity heartbeating (so cancellation and dead workers are noticed), and
// turn errors into Temporal failures.
import { Context } from '@temporalio/activity';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import {
  HUMAN_INPUT_UPDATE,
  type AgentTurnResult,
  type ChainStepAhead,
  type CustomAgentStep,
  type CustomLlmStep,
  type HumanInputAccepted,
  type HumanInputArgs,
  type RunActivities,
  type StepContext,
  type ToolSpec,
} from '@app/contracts';
import type { Metrics } from '@app/observability';
import type { CallAuditRepository, RunRepository, StepRepository } from '@app/persistence';
import { runEnding, type RunPreparer } from '@app/runs';
import type { ActivityScope } from '../execution/activity-scope';
import type { AgentStepService, AnsweredHere, TurnsFrom } from '../execution/agent-step.service';
import type { HeldEnd, LlmStepService } from '../execution/llm-step.service';
import type { GraphService } from '../execution/graph.service';
import type { ConversationService } from '../execution/conversation.service';
import type { HumanInputService } from '../execution/human-input.service';
import type { LoopService } from '../execution/loop.service';
import type { SubWorkflowService } from '../execution/sub-workflow.service';
import type { WorkflowToolService } from '../execution/workflow-tool.service';
import type { NotificationService } from '../execution/notification.service';
import type { StopCheckerService } from '../execution/stop-checker.service';
import type { ToolCallService } from '../execution/tool-call.service';
import type { ToolExecutorService } from '../execution/tool-executor.service';
import { nameLogStep } from '../activity-interceptors';
import { runOn, type ChainStepRunner, type RanStep } from './chain-run-on';
import { acceptingLegacyContexts } from './legacy-step-context';
import { toApplicationFailure } from './to-application-failure';

export interface RunServices {
  llm: LlmStepService;
  agent: AgentStepService;
  tools: ToolCallService;
  stopChecker: StopCheckerService;
  loops: LoopService;
  subWorkflows: SubWorkflowService;
  workflowTools: WorkflowToolService;
  graph: GraphService;
  toolExecutor: ToolExecutorService;
  humanInput: HumanInputService;
  conversation: ConversationService;
  notifications: NotificationService;
  runs: RunRepository;
  steps: StepRepository;
  calls: CallAuditRepository;
  preparer: RunPreparer;
  metrics: Metrics;
}

const HEARTBEAT_EVERY_MS = 1000;

/**
 * Runs an activity's work with heartbeats, the cancellation signal and our errors as Temporal failures. A
 * local activity does not heartbeat (it cannot): its cancellation comes from the workflow on this worker.
 */
export async function inActivity<T>(work: (scope: ActivityScope) => Promise<T>): Promise<T> {
  const context = Context.current();
  const beat = context.info.isLocal ? undefined : setInterval(() => context.heartbeat(), HEARTBEAT_EVERY_MS);
  try {
    return await work({ signal: context.cancellationSignal, attempt: context.info.attempt });
  } catch (error) {
    // Cancelled: report it as the cancellation it is (the SDK's CancelledFailure), not as a failure.
    if (context.cancellationSignal.aborted) throw context.cancellationSignal.reason;
    throw toApplicationFailure(error, context.log);
  } finally {
    clearInterval(beat);
  }
}

/**
 * A replay's human_input step takes the answer the replayed run took, sent to its own execution as a person's
 * answer would be (the step takes answers from before its wait is announced). Refused: an earlier attempt of
 * this activity sent it already.
 */
async function answerOwnRun(args: HumanInputArgs): Promise<void> {
  const context = Context.current();
  const workflowId = context.info.workflowExecution?.workflowId;
  if (!workflowId) return;
  try {
    await context.client.workflow
      .getHandle(workflowId)
      .executeUpdate<HumanInputAccepted, [HumanInputArgs]>(HUMAN_INPUT_UPDATE, { args: [args] });
  } catch (error) {
    if (!(error instanceof WorkflowUpdateFailedError)) throw error;
  }
}

export function createRunActivities(services: RunServices): RunActivities {
  /**
   * The activities that may be an execution's first (a loop's iteration, or a graph step's execution): they open
   * its row under its parent's before their work (kept as it is when the activity is retried).
   */
  const opening = <T>(context: StepContext, work: (scope: ActivityScope) => Promise<T>) =>
    inActivity(async (scope) => {
      const { execution } = context;
      if (execution) await services.steps.openExecution(execution.parent_instance_uuid, context.instance_uuid, execution.index);
      return work(scope);
    });
  /** The run's end: its status recorded once, counted in the metrics. */
  const endRun: RunActivities['finishRun'] = async ({ run_uuid, status, error_message, guard_rail }) => {
    if (await services.runs.end(runEnding(run_uuid, { status, error_message, guard_rail }))) services.metrics.runsFinished.inc({ status });
  };
  /**
   * The end the last step this activity ran still holds written (`held`), and where that step completed the
   * chain (`done`) and no cancel came, the run's end recorded as finishRun would, in the same transaction when
   * there is such an end: `run_ended`, for the workflow to skip finishRun.
   */
  const endedIf = async (
    done: boolean,
    runUuid: string,
    scope: ActivityScope,
    held: HeldEnd | null = null,
  ): Promise<{ run_ended?: true }> => {
    const unwritten = held?.written ? null : held;
    if (!done || scope.signal.aborted) {
      if (unwritten) await services.llm.writeEnd(unwritten);
      return {};
    }
    const ending = runEnding(runUuid, { status: 'completed', error_message: null });
    if (await (unwritten ? services.llm.writeEnd(unwritten, ending) : services.runs.end(ending)))
      services.metrics.runsFinished.inc({ status: 'completed' });
    return { run_ended: true };
  };
  /** A custom_llm step's run: its output, routed and loop-checked, and its end held back for the next step's start (runOn). */
  const llmStep = async (context: StepContext, step: CustomLlmStep, scope: ActivityScope, before: HeldEnd | null = null) => {
    const { stored, end } = await services.llm.runHoldingEnd(context, services.graph.routed(step, context), scope, before);
    return { ref: services.graph.withRoute(context, services.loops.checked(context, step, stored), stored.data), end };
  };
  /**
   * The steps of a chain run on after `first` in this activity (runOn), every end written but the last one's, handed
   * back (`held`): the log lines of each name it, then the activity's own again.
   */
  const chainRunOn = async (first: RanStep, ahead: ChainStepAhead[], scope: ActivityScope) => {
    const activity = Context.current();
    const runner: ChainStepRunner = {
      run: (context, step, stepScope, before) => {
        nameLogStep(activity, step.name);
        return llmStep(context, step, stepScope, before);
      },
      writeEnd: (end) => services.llm.writeEnd(end),
      failStep: (instanceUuid, message) => services.steps.failStep(instanceUuid, message),
    };
    const ran = await runOn(runner, first, ahead, { scope, log: activity.log });
    nameLogStep(activity, first.step.name);
    return ran;
  };
  /**
   * An agent's completion: its final answer as the output, routed and loop-checked as any step's; `after`, what the
   * activity that asked that answer knows (AgentStepService.complete), `runEnded` where the run's end went with it.
   */
  const completeAgent = async (context: StepContext, step: CustomAgentStep, length: number, scope: ActivityScope, after?: AnsweredHere) => {
    const { stored, runEnded } = await services.agent.complete(context, services.graph.routed(step, context), length, scope, after);
    if (runEnded) services.metrics.runsFinished.inc({ status: 'completed' });
    const ref = services.graph.withRoute(context, services.loops.checked(context, step, stored), stored.data);
    return { ref, ...(runEnded !== undefined ? { run_ended: true as const } : {}) };
  };
  /**
   * Rounds sharing one activity; with `complete`, a final answer reached there completes the step too, and with
   * `endsRun` (the step ends the chain) the run with it (`run_ended`).
   */
  const sharedTurns = async (
    context: StepContext,
    step: CustomAgentStep,
    tools: ToolSpec[],
    from: TurnsFrom,
    shortTools: string[],
    { complete, endsRun }: { complete?: boolean; endsRun?: boolean },
    scope: ActivityScope,
  ): Promise<{ result: AgentTurnResult; run_ended?: true }> => {
    const { result, transcript } = await services.agent.turns(context, step, tools, from, scope, shortTools);
    if (!complete || result.tool_calls.length) return { result };
    const { ref, run_ended } = await completeAgent(context, step, result.conversation_length, scope, { transcript, endsRun });
    return { result: { ...result, completed: ref }, ...(run_ended ? { run_ended } : {}) };
  };
  return acceptingLegacyContexts<RunActivities>({
    prepareScheduledRun: ({ schedule_id, workflow_uuid, user_id, trigger_output, run_uuid, temporal_workflow_id }) =>
      inActivity(async () => {
        const request = {
          userId: user_id,
          workflowUuid: workflow_uuid,
          triggerOutput: trigger_output,
          runUuid: run_uuid,
          temporalWorkflowId: temporal_workflow_id,
          scheduleId: schedule_id,
          origin: 'schedule' as const,
        };
        return (await services.preparer.prepare(request)).run;
      }),
    runLlmStep: ({ step, run_on, ends_run, ...context }) =>
      opening(context, async (scope) => {
        const { ref, end } = await llmStep(context, step, scope);
        const { held, ...ran } = run_on?.length ? await chainRunOn({ context, step, ref, end }, run_on, scope) : { held: end };
        const allRan = (ran.ran_on?.length ?? 0) === (run_on?.length ?? 0);
        return { ...ref, ...ran, ...(await endedIf(Boolean(ends_run) && allRan, context.run_uuid, scope, held)) };
      }),
    startAgentStep: ({ step, turns, ...context }) =>
      opening(context, async (scope) => {
        const { start, known } = await services.agent.begin(context, services.graph.routed(step, context));
        if (!turns || !start.local_tools?.length) return start;
        const from = { turn: 1, lastTurn: turns.last_turn, length: start.conversation_length, known };
        const endsRun = Boolean(turns.ends_run);
        const { result: first, run_ended } = await sharedTurns(
          context,
          step,
          start.tools,
          from,
          start.local_tools,
          { complete: true, endsRun },
          scope,
        );
        // The run's end went with the step's, or, where an earlier attempt completed the step, goes now.
        const ended = run_ended ? { run_ended } : await endedIf(endsRun && Boolean(first.completed), context.run_uuid, scope);
        return { ...start, first_turns: first, ...ended };
      }),
    agentTurn: ({ step, tools, turn, conversation_length, short_tools, last_turn, complete, ...context }) =>
      inActivity(async (scope) =>
        last_turn && short_tools
          ? (
              await sharedTurns(
                context,
                step,
                tools,
                { turn, lastTurn: last_turn, length: conversation_length },
                short_tools,
                { complete },
                scope,
              )
            ).result
          : services.agent.turn(context, step, tools, turn, conversation_length, scope, short_tools),
      ),
    callTool: ({ step, call, position, conversation_uuid, ...context }) =>
      inActivity((scope) => services.tools.call(context, step, call, position, scope, conversation_uuid)),
    completeAgentStep: ({ step, conversation_length, ...context }) =>
      inActivity(async (scope) => (await completeAgent(context, step, conversation_length, scope)).ref),
    handOffToolCalls: ({ tool_calls, ...context }) => inActivity(() => services.toolExecutor.handOff(context, tool_calls)),
    startToolExecutor: ({ handoff, ...context }) => opening(context, () => services.toolExecutor.start(context, handoff)),
    completeToolExecutor: ({ handoff, ...context }) => inActivity(() => services.toolExecutor.complete(context, handoff)),
    continueAgentStep: ({ step, from, ...context }) =>
      opening(context, () => services.toolExecutor.continueAgent(context, services.graph.routed(step, context), from)),
    startLoop: ({ step, ...context }) => opening(context, () => services.loops.start(context, step)),
    completeLoop: ({ step, iterations, stopped_by, ...context }) =>
      inActivity(() => services.loops.complete(context, step, iterations, stopped_by)),
    startSubWorkflow: ({ step, child_run_uuid, depth, ...context }) =>
      opening(context, () => services.subWorkflows.start(context, step, child_run_uuid, depth)),
    completeSubWorkflow: ({ step, child_run_uuid, ...context }) =>
      inActivity(() => services.subWorkflows.complete(context, step, child_run_uuid)),
    startWorkflowTool: ({ step, call, position, workflow_uuid, depth, conversation_uuid, parent_step_uuid, ...context }) =>
      inActivity((scope) =>
        services.workflowTools.start(context, call, { position, conversation_uuid }, workflow_uuid, {
          parentStepUuid: parent_step_uuid ?? step.uuid,
          depth,
          scope,
        }),
      ),
    completeWorkflowTool: ({ step: _step, call, position, child_run_uuid, audit_attempt, conversation_uuid, ...context }) =>
      inActivity((scope) =>
        services.workflowTools.complete(context, call, { position, conversation_uuid }, child_run_uuid, audit_attempt, scope),
      ),
    runStopChecker: ({ step, ...context }) => opening(context, () => services.stopChecker.run(context, step)),
    awaitHumanInput: ({ step, reason, guard_rail, ...context }) =>
      opening(context, async () => {
        const reused = await services.humanInput.wait(context, step, reason, guard_rail);
        if (reused) await answerOwnRun({ step_uuid: step.uuid, input: reused.input });
      }),
    answerHumanInput: ({ step, input, ...context }) => inActivity(() => services.humanInput.answer(context, input, step)),
    expireHumanInput: ({ step: _step, error_message, ...context }) => inActivity(() => services.humanInput.expire(context, error_message)),
    evaluateEdgeConditions: ({ user_id, output_id, edges }) => inActivity(() => services.graph.conditionsHeld(user_id, output_id, edges)),
    closeGraphStep: ({ instance_uuid, failed }) => inActivity(() => services.graph.close(instance_uuid, failed)),
    openConversation: ({ run_uuid }) => services.conversation.open(run_uuid),
    receiveMessage: ({ run_uuid, turn, content }) => services.conversation.receive(run_uuid, turn, content),
    answerTurn: ({ run_uuid, user_id, turn, output_id, closing }) =>
      services.conversation.answer(run_uuid, user_id, turn, output_id, closing),
    failStep: ({ instance_uuid, error_message }) => services.steps.failStep(instance_uuid, error_message),
    tokensUsed: ({ run_uuid }) => services.calls.tokensUsed(run_uuid),
    runSpend: ({ run_uuid }) => services.calls.runSpend(run_uuid),
    pauseForBudget: ({ run_uuid, used_tokens, max_tokens, used_cost, max_cost }) =>
      services.runs.setBudget(
        run_uuid,
        { max_tokens, paused_at_tokens: used_tokens, ...(max_cost !== undefined ? { max_cost, paused_at_cost: used_cost ?? null } : {}) },
        'awaiting_input',
      ),
    resumeAfterBudget: ({ run_uuid, max_tokens, max_cost }) =>
      services.runs.setBudget(
        run_uuid,
        { max_tokens, paused_at_tokens: null, ...(max_cost !== undefined ? { max_cost, paused_at_cost: null } : {}) },
        'running',
      ),
    finishRun: endRun,
    notifyRunEnd: ({ run_uuid, user_id, url }) => inActivity((scope) => services.notifications.notify(run_uuid, user_id, url, scope)),
  });
}
