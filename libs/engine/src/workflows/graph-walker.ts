// The one walk every run takes. A graph run walks its edges; a chain walks the graph of ALWAYS edges from
// each step to the next (chainAsGraph), so the same code runs both: only where a step's execution is
// recorded and which guard rails apply differ, and the plan says which.
import { ApplicationFailure, CancellationScope, ContinueAsNew, isCancellation, uuid4 } from '@temporalio/workflow';
import {
  chainAsGraph,
  DEFAULT_GRAPH_TIMEOUT_SECONDS,
  DEFAULT_MAX_STEPS,
  type ContinuedLoop,
  type ContinuedWalk,
  type ConversationRef,
  type CustomAgentStep,
  type EdgeDefinition,
  type GraphDefinition,
  type IterationRef,
  type LoopingStep,
  type StepContext,
  type StepDefinition,
  type ToolExecutorStep,
  type ToolHandoff,
  type WorkflowDefinition,
} from '@app/contracts';
import { agentTurns } from './agent-turns';
import { afterToolCalls, conditionalEdges, nextTargets, routeChoices, toolHandOffEdge } from './graph-routing';
import { runHumanInput } from './human-input-step';
import { runLoop, type LoopCarry } from './loop-step';
import { newInputTracker } from './new-input';
import type { StepTally } from './run-end';
import { bookkeeping, failureMessage, type RunScope } from './run-scope';

/** How a definition is walked. */
export interface WalkPlan {
  graph: GraphDefinition;
  /**
   * Graph runs record each execution of a step in a row of its own under the step's row (steps in a cycle
   * run many times); a chain runs each step once, on the step's row.
   */
  rowPerExecution: boolean;
  maxSteps: number;
  timeoutSeconds: number;
  humanHandoff: string | null;
}

export function walkPlan(definition: WorkflowDefinition): WalkPlan {
  const { graph } = definition;
  // A chain cannot cycle: its guard rails are its length.
  if (!graph) return { graph: chainAsGraph(definition.steps, (uuid) => uuid)!, rowPerExecution: false, maxSteps: Infinity, timeoutSeconds: Infinity, humanHandoff: null };
  return {
    graph,
    rowPerExecution: true,
    maxSteps: graph.max_steps ?? DEFAULT_MAX_STEPS,
    timeoutSeconds: graph.timeout_seconds ?? DEFAULT_GRAPH_TIMEOUT_SECONDS,
    humanHandoff: graph.human_handoff_step_uuid ?? null,
  };
}

/**
 * An activation of a step: which step, and the step whose output is its $previous_output; for a tool
 * executor the calls handed to it, for an agent back from one the conversation it goes on with; `reason`
 * when a guard rail hands the run to the human hand-off step; `loop` where a continued execution picks a
 * loop up.
 */
export interface Activation {
  step_uuid: string;
  previous_step_uuid: string | null;
  handoff?: ToolHandoff;
  continues?: ConversationRef;
  reason?: string;
  loop?: ContinuedLoop;
}

/** A guard rail that ended a walk: its message names it, `type` is the failure's code. */
export interface GuardHit {
  type: 'MaxStepsReached' | 'TimeoutReached' | 'RepeatedInput';
  message: string;
}

/** How one walk ended; the last output is a conversational turn's reply. */
export interface WalkOutcome {
  stopped: string | null;
  guard: GuardHit | null;
  failures: string[];
  last_output_id: string | null;
}

const loopOf = (step: StepDefinition): LoopingStep | null => ((step.type === 'custom_llm' || step.type === 'custom_agent') && step.loop ? step : null);

/**
 * The walk goes in waves: the steps activated run in parallel, then the edges out of each completed one
 * activate the next wave. A failed step ends its branch (its error on its row) while the others go on;
 * `maxSteps` executions in all is the guard rail. A conversational run walks once per turn: the tally spans
 * the run, the guard rails a walk.
 */
export function graphWalker(scope: RunScope, plan: WalkPlan, executions: Map<string, number>) {
  const { input, instanceOf, activitiesFor, counters } = scope;
  const { graph } = plan;
  const byUuid = new Map(input.definition.steps.map((step) => [step.uuid, step]));
  const tally: StepTally = { executions, failed: new Set<string>() };
  let failures: string[] = [];
  let stopped: string | null = null;
  let guard: GuardHit | null = null;
  let lastOutput: string | null = null;
  let turn: number | undefined;
  /** Activations of the wave running now: a loop continues the run as new only as the walk's one branch. */
  let waveSize = 0;
  const maxSteps: GuardHit = { type: 'MaxStepsReached', message: `Guard max_steps reached: the run made ${plan.maxSteps} step executions without ending` };
  const timeout: GuardHit = { type: 'TimeoutReached', message: `Guard timeout_seconds reached: the run walked for more than ${plan.timeoutSeconds} s without ending` };
  // Where the guard rails count from: the walk's start, or the last hand-off to a person.
  let budgetFrom = 0;
  let clockFrom = Date.now();
  const news = newInputTracker();

  const activationKey = ({ step_uuid, handoff }: Activation) => (handoff ? `${step_uuid}/${handoff.conversation.instance_uuid}` : step_uuid);
  const isToolExecutor = (stepUuid: string) => byUuid.get(stepUuid)?.type === 'tool_executor';
  const executionCount = () => [...executions.values()].reduce((sum, n) => sum + n, 0);

  /**
   * A graph agent: runs its turns (going on with a conversation when back from a tool executor), or hands its
   * tool calls over along `handOff`, its edge to a tool executor if it has one.
   */
  async function runGraphAgent(step: CustomAgentStep, context: StepContext, continues: ConversationRef | undefined, handOff: EdgeDefinition | null): Promise<IterationRef | Activation> {
    const start = continues ? await activitiesFor(step).continueAgentStep({ ...context, step, from: continues }) : await activitiesFor(step).startAgentStep({ ...context, step });
    const end = await agentTurns(scope, step, context, start, handOff !== null);
    return 'ref' in end ? end.ref : { step_uuid: handOff!.target_step_uuid!, previous_step_uuid: step.uuid, handoff: end.handoff };
  }

  /**
   * A tool executor runs the calls handed to it, each its own activity (audited under its execution, the
   * answer put in the caller's conversation), then routes by seed 004's tiers. Going back to the caller
   * continues the caller's conversation.
   */
  async function runToolExecutor(step: ToolExecutorStep, context: StepContext, handoff: ToolHandoff | undefined): Promise<Activation[]> {
    if (!handoff) throw ApplicationFailure.nonRetryable(`Tool executor "${step.name}" was reached without tool calls: only an agent's tool calls activate it`, 'NoToolCalls');
    const caller = byUuid.get(handoff.caller_step_uuid) as CustomAgentStep;
    const conversationUuid = handoff.conversation.instance_uuid;
    await activitiesFor(step, `${step.name}: from ${caller.name}`).startToolExecutor({ ...context, handoff });
    let position = handoff.conversation.conversation_length;
    for (const call of handoff.calls) {
      await activitiesFor(caller, `${step.name}: tool ${call.name}`).callTool({ ...context, step: caller, call, position, conversation_uuid: conversationUuid });
      position += 1;
    }
    const results = await activitiesFor(step).completeToolExecutor({ ...context, handoff });
    news.outputOf(step.uuid, results.digest);
    const next = afterToolCalls(graph, step.uuid, handoff.calls.map((call) => call.name));
    const targets = next.to_caller ? [caller.uuid] : next.targets;
    const continues = { instance_uuid: conversationUuid, conversation_length: position };
    return targets.map((target) => ({ step_uuid: target, previous_step_uuid: step.uuid, ...(target === caller.uuid ? { continues } : {}) }));
  }

  /** What a graph walk carries into the execution that continues a loop of `context`'s execution. */
  function loopCarry(context: StepContext): LoopCarry {
    if (!plan.rowPerExecution) return () => ({});
    if (waveSize !== 1 || turn !== undefined) return null;
    return () => ({
      walk: {
        instance_uuid: context.instance_uuid,
        index: context.iteration!.index,
        executions: Object.fromEntries(executions),
        failed: [...tally.failed],
        failures,
        steps_counted: executionCount() - budgetFrom,
        walked_ms: Date.now() - clockFrom - counters.waitedForPeopleMs,
      },
    });
  }

  /** Runs one activation: the step's output, or (tool hand-offs, stop checkers) the activations that follow. */
  async function runStep(step: StepDefinition, context: StepContext, { previous_step_uuid, handoff, continues, reason, loop }: Activation, handOff: EdgeDefinition | null, summary: string | undefined): Promise<IterationRef | Activation[]> {
    const looping = loopOf(step);
    if (looping) return await runLoop(scope, looping, context, loop ?? null, loopCarry(context));
    switch (step.type) {
      case 'custom_llm':
        return await activitiesFor(step, summary).runLlmStep({ ...context, step });
      case 'custom_agent': {
        const ran = await runGraphAgent(step, context, continues, handOff);
        return 'step_uuid' in ran ? [ran] : ran;
      }
      case 'tool_executor':
        return await runToolExecutor(step, context, handoff);
      case 'human_input':
        return await runHumanInput(scope, step, context, reason);
      case 'stop_checker': {
        const check = await activitiesFor(step, summary).runStopChecker({ ...context, step });
        if (check.stopped) stopped ??= check.reason;
        // A stop checker produces no output: $previous_output still means the step before it.
        return check.stopped ? [] : nextTargets(graph, step.uuid, { route: null, conditions_held: [] }).map((target) => ({ step_uuid: target, previous_step_uuid }));
      }
    }
  }

  async function execute(activation: Activation): Promise<Activation[]> {
    const step = byUuid.get(activation.step_uuid)!;
    // A loop an earlier execution of the run continued as new: same execution row, already counted.
    const resumed = activation.loop?.walk;
    if (resumed) return await executeAs(step, activation, resumed.index, resumed.instance_uuid);
    if (executionCount() - budgetFrom >= plan.maxSteps) {
      guard ??= maxSteps;
      return [];
    }
    // Tool results and a person's answer are new input; otherwise some step's output must have changed.
    if (!activation.handoff && !activation.continues && !activation.reason && !news.hasNewInput(step.uuid)) {
      guard ??= { type: 'RepeatedInput', message: `Guard repeated_input: step "${step.name}" was reached again while no step's output had changed since its last run` };
      return [];
    }
    const index = executions.get(step.uuid) ?? 0;
    executions.set(step.uuid, index + 1);
    return await executeAs(step, activation, index, plan.rowPerExecution ? uuid4() : instanceOf.get(step.uuid)!);
  }

  /** Runs execution `index` of `step` on row `instanceUuid`, and returns the activations it leads to. */
  async function executeAs(step: StepDefinition, activation: Activation, index: number, instanceUuid: string): Promise<Activation[]> {
    // Tool calls alone take an agent to its tool executor: its final answer chooses among the other routes.
    const handOff = step.type === 'custom_agent' ? toolHandOffEdge(graph, step.uuid, isToolExecutor) : null;
    const choices = routeChoices(graph, step.uuid).filter((choice) => choice !== handOff?.condition_value);
    const context: StepContext = {
      run_uuid: input.run_uuid,
      user_id: input.user_id,
      instance_uuid: instanceUuid,
      previous_step_uuid: activation.previous_step_uuid,
      ...(plan.rowPerExecution ? { iteration: { parent_instance_uuid: instanceOf.get(step.uuid)!, index } } : {}),
      ...(choices.length ? { route_choices: choices } : {}),
      ...(input.definition.output_history_size ? { output_history_size: input.definition.output_history_size } : {}),
      ...(turn !== undefined ? { conversation_turn: turn } : {}),
      ...(input.dry_run ? { dry_run: true as const } : {}),
    };
    try {
      const ran = await runStep(step, context, activation, handOff, plan.rowPerExecution ? `${step.name}: run ${index + 1}` : undefined);
      if (Array.isArray(ran)) return ran;
      // A run with a token budget waits here for an approval once its model calls reach it.
      await scope.budget?.check(input.run_uuid);
      lastOutput = ran.output_id;
      news.outputOf(step.uuid, ran.digest);
      const withConditions = conditionalEdges(graph, step.uuid).map((edge) => ({ uuid: edge.uuid, conditions: edge.conditions! }));
      const held = withConditions.length ? await bookkeeping.evaluateEdgeConditions({ user_id: input.user_id, output_id: ran.output_id, edges: withConditions }) : [];
      return nextTargets(graph, step.uuid, { route: ran.route ?? null, conditions_held: held })
        .filter((target) => target !== handOff?.target_step_uuid)
        .map((target) => ({ step_uuid: target, previous_step_uuid: step.uuid }));
    } catch (error) {
      if (error instanceof ContinueAsNew) throw error;
      if (isCancellation(error) || CancellationScope.current().consideredCancelled) {
        await CancellationScope.nonCancellable(() => bookkeeping.failStep({ instance_uuid: context.instance_uuid, error_message: 'Cancelled while running' }));
        throw error;
      }
      // Seed 002: the error stays on the step's execution, and the other branches go on.
      tally.failed.add(step.uuid);
      failures.push(`Step "${step.name}" failed: ${failureMessage(error)}`);
      await bookkeeping.failStep({ instance_uuid: context.instance_uuid, error_message: failureMessage(error) });
      return [];
    }
  }

  /** Runs a wave's branches to their ends; a cancellation (or continue-as-new) goes on once every branch has closed its row. */
  async function runWave(wave: Activation[]): Promise<Activation[]> {
    waveSize = wave.length;
    const settled = await Promise.allSettled(wave.map(execute));
    const thrown = settled.find((result) => result.status === 'rejected');
    if (thrown) throw thrown.reason;
    return settled.flatMap((result) => (result.status === 'fulfilled' ? result.value : []));
  }

  /** Takes up where an earlier execution of the run left the walk (a loop that continued as new). */
  function carryOver(walked: ContinuedWalk): void {
    for (const [stepUuid, count] of Object.entries(walked.executions)) executions.set(stepUuid, count);
    for (const stepUuid of walked.failed) tally.failed.add(stepUuid);
    failures = [...walked.failures];
    budgetFrom = executionCount() - walked.steps_counted;
    clockFrom = Date.now() - walked.walked_ms;
  }

  /** Walks from `start` until every branch has ended; `turnNumber` for a conversation's turn. */
  async function walk(start: Activation, turnNumber?: number): Promise<WalkOutcome> {
    turn = turnNumber;
    failures = [];
    stopped = null;
    guard = null;
    lastOutput = null;
    const restartGuards = () => {
      budgetFrom = executionCount();
      clockFrom = Date.now();
      counters.waitedForPeopleMs = 0;
      news.forget();
    };
    restartGuards();
    if (start.loop?.walk) carryOver(start.loop.walk);
    for (let wave: Activation[] = [start]; wave.length && !stopped; ) {
      const activated = await runWave(wave);
      // Two edges into one step activate it once; a tool executor runs once per agent that handed it calls.
      wave = [...new Map(activated.map((activation) => [activationKey(activation), activation])).values()];
      // Workflow time (the task's start), so the check replays the same.
      if (!guard && wave.length && Date.now() - clockFrom - counters.waitedForPeopleMs > plan.timeoutSeconds * 1000) guard = timeout;
      if (guard && plan.humanHandoff) {
        // Seed 004: a person decides instead of the run failing; the guard rails start again after the answer.
        wave = [{ step_uuid: plan.humanHandoff, previous_step_uuid: null, reason: guard.message }];
        guard = null;
        restartGuards();
      } else if (guard) break;
    }
    return { stopped, guard, failures, last_output_id: lastOutput };
  }

  /** What went wrong in a walk, null when it ended cleanly (or was stopped). */
  const problemOf = (outcome: WalkOutcome): string | null => outcome.guard?.message ?? (outcome.failures.length ? outcome.failures.join('; ') : null);

  return { walk, tally, problemOf };
}
