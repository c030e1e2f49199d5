// The run workflow: walks a snapshot of the definition and runs each step as activities. It holds no
// data of its own beyond references; every write goes through an activity.
import {
  allHandlersFinished,
  ApplicationFailure,
  CancellationScope,
  condition,
  ContinueAsNew,
  continueAsNew,
  isCancellation,
  proxyActivities,
  upsertSearchAttributes,
  uuid4,
  workflowInfo,
} from '@temporalio/workflow';
import {
  DEFAULT_GRAPH_TIMEOUT_SECONDS,
  DEFAULT_IDLE_TIMEOUT_SECONDS,
  DEFAULT_MAX_STEPS,
  END_TOOL_NAME,
  TURNS_PER_EXECUTION,
  LOOP_DEFAULTS,
  type ContinuedLoop,
  type GraphDefinition,
  type AgentStart,
  type ConversationRef,
  type CustomAgentStep,
  type FinalStatus,
  type HumanInputStep,
  type IterationRef,
  type LoopingStep,
  type LoopStopReason,
  type PreparedRun,
  type RunActivities,
  type RunWorkflowInput,
  type RunWorkflowResult,
  type StepContext,
  type StepDefinition,
  type ToolExecutorStep,
  type ToolHandoff,
} from '@app/contracts';
import { BOOKKEEPING_OPTIONS, NOTIFICATION_OPTIONS, stepActivityOptions } from './activity-options';
import { afterToolCalls, conditionalEdges, nextTargets, routeChoices, toolHandOffEdge } from './graph-routing';
import { conversationInbox, type ConversationInbox } from './conversation';
import { humanInputInbox } from './human-input';
import { nextStep } from './next-step';

const bookkeeping = proxyActivities<RunActivities>(BOOKKEEPING_OPTIONS);
const notifications = proxyActivities<RunActivities>(NOTIFICATION_OPTIONS);
const DEFAULT_HEARTBEAT_SECONDS = 30;
const DEFAULT_MAX_ITERATIONS = 10;
/**
 * Loop iterations one execution runs before it continues as new (sooner if Temporal suggests it), so a
 * loop of thousands keeps each history to a few thousand events.
 */
export const CONTINUE_AS_NEW_EVERY = 500;

function failureMessage(error: unknown): string {
  let current = error as { message?: string; cause?: unknown } | undefined;
  // Activity failures wrap the activity's own error: show the innermost message.
  while (current?.cause) current = current.cause as typeof current;
  return current?.message || String(error);
}

/** A Temporal Schedule starts the workflow with a request: record the run first, under a uuid of our own. */
async function prepared(request: RunWorkflowInput): Promise<PreparedRun> {
  if (!('scheduled' in request)) return request;
  const run = await bookkeeping.prepareScheduledRun({ ...request.scheduled, run_uuid: uuid4(), temporal_workflow_id: workflowInfo().workflowId });
  upsertSearchAttributes({ StepwiseRunUuid: [run.run_uuid] });
  return { ...run, heartbeat_timeout_seconds: request.heartbeat_timeout_seconds };
}

export async function runWorkflow(request: RunWorkflowInput): Promise<RunWorkflowResult> {
  // Before the first await, so an answer is never delivered to a workflow without its handler.
  const inbox = humanInputInbox();
  const messages = 'definition' in request && request.definition.graph?.is_conversational ? conversationInbox() : null;
  const input = await prepared(request);
  const heartbeat = input.heartbeat_timeout_seconds ?? DEFAULT_HEARTBEAT_SECONDS;
  const instanceOf = new Map(input.instances.map((ref) => [ref.step_uuid, ref.instance_uuid]));
  const activitiesFor = (step: StepDefinition, summary = `${step.name} (${step.type})`) =>
    proxyActivities<RunActivities>(stepActivityOptions(step, heartbeat, summary));

  async function runAgent(step: CustomAgentStep, context: StepContext): Promise<IterationRef> {
    const end = await agentTurns(step, context, await activitiesFor(step).startAgentStep({ ...context, step }), false);
    return (end as { ref: IterationRef }).ref;
  }

  /**
   * An agent's turns until its final answer. `handsOff` (a graph agent with an edge to a tool executor):
   * the first tool calls end the execution and go to the tool executor instead of running here.
   */
  async function agentTurns(step: CustomAgentStep, context: StepContext, { tools, conversation_length }: AgentStart, handsOff: boolean): Promise<{ ref: IterationRef } | { handoff: ToolHandoff }> {
    // The conversation itself stays in MySQL: the workflow tracks its length and the calls to make.
    let length = conversation_length;
    const maxIterations = step.max_iterations ?? DEFAULT_MAX_ITERATIONS;
    for (let turn = 1; turn <= maxIterations; turn++) {
      const result = await activitiesFor(step, `${step.name}: model turn ${turn}`).agentTurn({ ...context, step, tools, turn, conversation_length: length });
      length = result.conversation_length;
      // The end tool runs like any other (audited, answered); the conversation closes once the turn has answered.
      if (context.conversation_turn !== undefined && result.tool_calls.some((call) => call.name === END_TOOL_NAME)) endRequested = true;
      if (!result.tool_calls.length) {
        return { ref: await activitiesFor(step).completeAgentStep({ ...context, step, conversation_length: length }) };
      }
      if (handsOff) {
        await activitiesFor(step, `${step.name}: hand ${result.tool_calls.length} tool call(s) over`).handOffToolCalls({ ...context, tool_calls: result.tool_calls });
        return { handoff: { caller_step_uuid: step.uuid, conversation: { instance_uuid: context.instance_uuid, conversation_length: length }, calls: result.tool_calls } };
      }
      // Each tool call is its own activity: once completed, a crash never repeats it.
      for (const call of result.tool_calls) {
        await activitiesFor(step, `${step.name}: tool ${call.name}`).callTool({ ...context, step, call, position: length });
        length += 1;
      }
    }
    throw ApplicationFailure.nonRetryable(
      `Agent step "${step.name}" reached max_iterations (${maxIterations}) without a final answer`,
      'MaxIterationsReached',
    );
  }

  /**
   * human_input: the step and the run wait for a person (or until timeout_seconds, then the default or a
   * failure); the answer is the step's output. `reason`: why a guard rail handed the run to this step.
   */
  async function runHumanInput(step: HumanInputStep, context: StepContext, reason?: string): Promise<IterationRef> {
    const activities = (summary: string) => proxyActivities<RunActivities>({ ...BOOKKEEPING_OPTIONS, summary: `${step.name}: ${summary}` });
    const announce = () => activities('wait for input').awaitHumanInput({ ...context, step, ...(reason ? { reason } : {}) });
    const waitStarted = Date.now();
    const answer = await inbox.wait(input.run_uuid, step.uuid, step.timeout_seconds ?? null, announce);
    waitedForPeopleMs += Date.now() - waitStarted;
    if (answer.answered) return await activities('store the answer').answerHumanInput({ ...context, step, input: answer.input });
    if (step.default !== undefined) return await activities('take the default').answerHumanInput({ ...context, step, input: step.default });
    const message = `No answer within ${step.timeout_seconds} s`;
    await activities('time out').expireHumanInput({ ...context, step, error_message: message });
    throw ApplicationFailure.nonRetryable(message, 'HumanInputTimedOut');
  }

  /** Conversational runs: an agent called the end tool during the current turn. */
  let endRequested = false;
  /** Time spent waiting for people: a graph's timeout_seconds guards the walk, not how long a person takes. */
  let waitedForPeopleMs = 0;
  let iterationsThisExecution = 0;
  let currentIteration: string | null = null;

  /**
   * A step with a loop: each iteration is the step's usual activities under an iteration row of its own
   * (its uuid drawn here, so a retried activity reuses it); only indexes travel, each iteration resolves
   * its item itself. `resume` is where an earlier execution of this run stopped.
   */
  async function runLoop(step: LoopingStep, context: StepContext, resume: ContinuedLoop | null): Promise<void> {
    const loop = step.loop!;
    const position = resume ?? { ...(await activitiesFor(step, `${step.name}: start ${loop.type}`).startLoop({ ...context, step })), next_iteration: 0 };
    const bound = loop.type === 'for_each' ? position.item_count! : (loop.max_iters ?? LOOP_DEFAULTS.max_iters);
    let iterations = position.next_iteration;
    let stoppedBy: LoopStopReason | null = null;
    while (iterations < bound && !stoppedBy) {
      if (iterationsThisExecution >= CONTINUE_AS_NEW_EVERY || workflowInfo().continueAsNewSuggested) {
        const continued: ContinuedLoop = { ...position, step_uuid: step.uuid, previous_step_uuid: context.previous_step_uuid, next_iteration: iterations };
        await continueAsNew<typeof runWorkflow>({ ...input, continued });
      }
      currentIteration = uuid4();
      const iteration = { ...context, instance_uuid: currentIteration, iteration: { parent_instance_uuid: context.instance_uuid, index: iterations } };
      const result =
        step.type === 'custom_llm' ? await activitiesFor(step, `${step.name}: iteration ${iterations + 1}`).runLlmStep({ ...iteration, step }) : await runAgent(step, iteration);
      currentIteration = null;
      iterations += 1;
      iterationsThisExecution += 1;
      if (result.predicate_met) stoppedBy = 'predicate';
    }
    stoppedBy ??= loop.type === 'repeat_until' ? 'max_iters' : position.truncated ? 'max_items' : 'exhausted';
    await activitiesFor(step, `${step.name}: end ${loop.type}`).completeLoop({ ...context, step, iterations, stopped_by: stoppedBy });
  }

  const finish = async (status: FinalStatus, error_message: string | null): Promise<RunWorkflowResult> => {
    await bookkeeping.finishRun({ run_uuid: input.run_uuid, status, error_message });
    await notify(status);
    return { status, error_message };
  };

  async function notify(status: FinalStatus): Promise<void> {
    const { notify_url, notify_on_complete, notify_on_failure } = input.definition;
    const wanted = status === 'failed' || status === 'partial_success' ? notify_on_failure : status !== 'cancelled' && notify_on_complete;
    if (!notify_url || !wanted) return;
    try {
      await notifications.notifyRunEnd({ run_uuid: input.run_uuid, user_id: input.user_id, url: notify_url });
    } catch {
      // Every attempt is recorded on the run; a receiver that never answers does not change the run's outcome.
    }
  }

  /**
   * An activation of a graph step: which step, and the step whose output is its $previous_output; for a
   * tool executor the calls handed to it, for an agent back from one the conversation it goes on with;
   * `reason` when a guard rail hands the run to the human hand-off step.
   */
  type Activation = { step_uuid: string; previous_step_uuid: string | null; handoff?: ToolHandoff; continues?: ConversationRef; reason?: string };

  /** How one walk of a graph ended; the last output is a conversational turn's reply. */
  interface WalkOutcome {
    stopped: string | null;
    guardHit: boolean;
    timedOut: boolean;
    failures: string[];
    last_output_id: string | null;
  }

  /**
   * A graph run walks in waves: the steps activated run in parallel, each execution its own row under its
   * step's, then the edges out of each completed one activate the next wave. A failed step ends its branch
   * (its error on its row) while the others go on; `max_steps` executions in all is the guard rail. A
   * conversational run walks once per turn: `executions` and `failed` span the run, the guard rails a walk.
   */
  function graphWalker(graph: GraphDefinition, executions: Map<string, number>) {
    const maxSteps = graph.max_steps ?? DEFAULT_MAX_STEPS;
    const byUuid = new Map(input.definition.steps.map((step) => [step.uuid, step]));
    const failed = new Set<string>();
    let failures: string[] = [];
    let stopped: string | null = null;
    let guardHit = false;
    let timedOut = false;
    let lastOutput: string | null = null;
    let turn: number | undefined;
    const timeoutSeconds = graph.timeout_seconds ?? DEFAULT_GRAPH_TIMEOUT_SECONDS;
    const humanHandoff = graph.human_handoff_step_uuid ?? null;
    const maxStepsMessage = `Guard max_steps reached: the run made ${maxSteps} step executions without ending`;
    const timeoutMessage = `Guard timeout_seconds reached: the run walked for more than ${timeoutSeconds} s without ending`;
    // Where the guard rails count from: the walk's start, or the last hand-off to a person.
    let budgetFrom = 0;
    let clockFrom = Date.now();

    const activationKey = ({ step_uuid, handoff }: Activation) => (handoff ? `${step_uuid}/${handoff.conversation.instance_uuid}` : step_uuid);
    const isToolExecutor = (stepUuid: string) => byUuid.get(stepUuid)?.type === 'tool_executor';
    const executionCount = () => [...executions.values()].reduce((sum, n) => sum + n, 0);

    /** A graph agent: runs its turns (going on with a conversation when back from a tool executor), or hands its tool calls over. */
    async function runGraphAgent(step: CustomAgentStep, context: StepContext, continues: ConversationRef | undefined): Promise<IterationRef | Activation> {
      const handOff = toolHandOffEdge(graph, step.uuid, isToolExecutor);
      const start = continues ? await activitiesFor(step).continueAgentStep({ ...context, step, from: continues }) : await activitiesFor(step).startAgentStep({ ...context, step });
      const end = await agentTurns(step, context, start, handOff !== null);
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
      await activitiesFor(step).completeToolExecutor({ ...context, handoff });
      const next = afterToolCalls(graph, step.uuid, handoff.calls.map((call) => call.name));
      const targets = next.to_caller ? [caller.uuid] : next.targets;
      const continues = { instance_uuid: conversationUuid, conversation_length: position };
      return targets.map((target) => ({ step_uuid: target, previous_step_uuid: step.uuid, ...(target === caller.uuid ? { continues } : {}) }));
    }

    async function execute({ step_uuid, previous_step_uuid, handoff, continues, reason }: Activation): Promise<Activation[]> {
      const step = byUuid.get(step_uuid)!;
      if (executionCount() - budgetFrom >= maxSteps) {
        guardHit = true;
        return [];
      }
      const index = executions.get(step.uuid) ?? 0;
      executions.set(step.uuid, index + 1);
      // Tool calls alone take an agent to its tool executor: its final answer chooses among the other routes.
      const handOff = step.type === 'custom_agent' ? toolHandOffEdge(graph, step.uuid, isToolExecutor) : null;
      const choices = routeChoices(graph, step.uuid).filter((choice) => choice !== handOff?.condition_value);
      const context: StepContext = {
        run_uuid: input.run_uuid,
        user_id: input.user_id,
        instance_uuid: uuid4(),
        previous_step_uuid,
        iteration: { parent_instance_uuid: instanceOf.get(step.uuid)!, index },
        ...(choices.length ? { route_choices: choices } : {}),
        ...(input.definition.output_history_size ? { output_history_size: input.definition.output_history_size } : {}),
        ...(turn !== undefined ? { conversation_turn: turn } : {}),
      };
      try {
        let ref: IterationRef;
        const activities = activitiesFor(step, `${step.name}: run ${index + 1}`);
        if (step.type === 'custom_llm') ref = await activities.runLlmStep({ ...context, step });
        else if (step.type === 'custom_agent') {
          const ran = await runGraphAgent(step, context, continues);
          if ('step_uuid' in ran) return [ran];
          ref = ran;
        } else if (step.type === 'tool_executor') return await runToolExecutor(step, context, handoff);
        else if (step.type === 'human_input') ref = await runHumanInput(step, context, reason);
        else if (step.type === 'stop_checker') {
          const check = await activities.runStopChecker({ ...context, step });
          if (check.stopped) stopped ??= check.reason;
          return check.stopped ? [] : nextTargets(graph, step.uuid, { route: null, conditions_held: [] }).map((target) => ({ step_uuid: target, previous_step_uuid }));
        } else {
          const unsupported = step as StepDefinition; // every type runs today: kept for types added later
          throw ApplicationFailure.nonRetryable(`Step "${unsupported.name}" is a ${unsupported.type}, which graph runs do not run yet`, 'UnsupportedStep');
        }
        lastOutput = ref.output_id;
        const withConditions = conditionalEdges(graph, step.uuid).map((edge) => ({ uuid: edge.uuid, conditions: edge.conditions! }));
        const held = withConditions.length ? await bookkeeping.evaluateEdgeConditions({ user_id: input.user_id, output_id: ref.output_id, edges: withConditions }) : [];
        return nextTargets(graph, step.uuid, { route: ref.route ?? null, conditions_held: held })
          .filter((target) => target !== handOff?.target_step_uuid)
          .map((target) => ({ step_uuid: target, previous_step_uuid: step.uuid }));
      } catch (error) {
        if (isCancellation(error) || CancellationScope.current().consideredCancelled) throw error;
        // Seed 002: the error stays on the step's execution, and the other branches go on.
        failed.add(step.uuid);
        failures.push(`Step "${step.name}" failed: ${failureMessage(error)}`);
        await bookkeeping.failStep({ instance_uuid: context.instance_uuid, error_message: failureMessage(error) });
        return [];
      }
    }

    /** Walks from `start` until every branch has ended; `turnNumber` for a conversation's turn. */
    async function walk(start: Activation, turnNumber?: number): Promise<WalkOutcome> {
      turn = turnNumber;
      failures = [];
      stopped = null;
      guardHit = false;
      timedOut = false;
      lastOutput = null;
      budgetFrom = executionCount();
      clockFrom = Date.now();
      waitedForPeopleMs = 0;
      for (let wave: Activation[] = [start]; wave.length && !stopped; ) {
        const activated = await Promise.all(wave.map(execute));
        // Two edges into one step activate it once; a tool executor runs once per agent that handed it calls.
        wave = [...new Map(activated.flat().map((activation) => [activationKey(activation), activation])).values()];
        // Workflow time (the task's start), so the check replays the same.
        const guard = guardHit ? maxStepsMessage : wave.length && Date.now() - clockFrom - waitedForPeopleMs > timeoutSeconds * 1000 ? timeoutMessage : null;
        if (guard && humanHandoff) {
          // Seed 004: a person decides instead of the run failing; the guard rails start again after the answer.
          wave = [{ step_uuid: humanHandoff, previous_step_uuid: null, reason: guard }];
          guardHit = false;
          budgetFrom = executionCount();
          clockFrom = Date.now();
          waitedForPeopleMs = 0;
        } else if (guard && !guardHit) {
          timedOut = true;
          break;
        }
      }
      return { stopped, guardHit, timedOut, failures, last_output_id: lastOutput };
    }

    /** What went wrong in a walk, null when it ended cleanly (or was stopped). */
    const problemOf = (outcome: WalkOutcome): string | null =>
      outcome.guardHit ? maxStepsMessage : outcome.timedOut ? timeoutMessage : outcome.failures.length ? outcome.failures.join('; ') : null;

    return { walk, executions, failed, problemOf };
  }

  async function runGraph(graph: GraphDefinition): Promise<RunWorkflowResult> {
    const walker = graphWalker(graph, new Map());
    const { executions, failed } = walker;
    let outcome: WalkOutcome;
    try {
      // A resumed run starts at its node, the steps its parent completed carried over.
      const start: Activation = input.resume ? { step_uuid: input.resume.from_step_uuid, previous_step_uuid: input.resume.previous_step_uuid } : { step_uuid: graph.entry_node, previous_step_uuid: null };
      outcome = await walker.walk(start);
    } catch (error) {
      await closeCancelled(executions, failed);
      throw error;
    }
    await closeGraphSteps(executions, failed);
    const { stopped, guardHit, timedOut, failures } = outcome;
    if (stopped) return await finish('stopped', stopped);
    const message = walker.problemOf(outcome);
    if (guardHit || timedOut) {
      await finish(failures.length ? 'partial_success' : 'failed', message);
      throw ApplicationFailure.nonRetryable(message!, guardHit ? 'MaxStepsReached' : 'TimeoutReached');
    }
    if (!message) return await finish('completed', null);
    await finish(failed.size < executions.size ? 'partial_success' : 'failed', message);
    throw ApplicationFailure.nonRetryable(message, 'StepFailed');
  }

  /**
   * A conversational run (seed 004): open until an agent calls the end tool or no message comes within
   * idle_timeout_seconds. Each message is a turn (a walk from the entry node to END) run by the update's
   * handler; every `turns_per_execution` turns (or when Temporal suggests it) the run continues as new,
   * carrying the turn count and execution counters (the transcript is in MySQL).
   */
  async function runConversation(graph: GraphDefinition, inbox: ConversationInbox): Promise<RunWorkflowResult> {
    const idleSeconds = graph.idle_timeout_seconds ?? DEFAULT_IDLE_TIMEOUT_SECONDS;
    const walker = graphWalker(graph, new Map(Object.entries(input.conversation?.executions ?? {})));
    const { executions, failed } = walker;
    for (const stepUuid of input.conversation?.failed ?? []) failed.add(stepUuid);
    const turnsPerExecution = input.turns_per_execution ?? TURNS_PER_EXECUTION;
    let turnsThisExecution = 0;
    let stopped: string | null = null;
    inbox.serve(input.conversation?.turns ?? 0, async (turn, content) => {
      await bookkeeping.receiveMessage({ run_uuid: input.run_uuid, turn, content });
      endRequested = false;
      const outcome = await walker.walk({ step_uuid: graph.entry_node, previous_step_uuid: null }, turn);
      turnsThisExecution += 1;
      stopped = outcome.stopped;
      const problem = walker.problemOf(outcome);
      if (endRequested || stopped) inbox.state.closing = true;
      const reply = await bookkeeping.answerTurn({ run_uuid: input.run_uuid, user_id: input.user_id, turn, output_id: outcome.last_output_id, closing: inbox.state.closing });
      return { turn, reply, status: inbox.state.closing ? 'completed' : problem ? 'failed' : 'awaiting_input', ...(problem ? { error_message: problem } : {}) };
    });
    let idle = false;
    try {
      if (!input.conversation) await bookkeeping.openConversation({ run_uuid: input.run_uuid });
      while (!inbox.state.closing) {
        const turnsBefore = inbox.state.turns;
        const active = await condition(() => inbox.state.busy || inbox.state.closing || inbox.state.turns !== turnsBefore, idleSeconds * 1000);
        if (!active) {
          idle = true;
          inbox.state.closing = true;
          break;
        }
        await condition(() => !inbox.state.busy);
        if (!inbox.state.closing && (turnsThisExecution >= turnsPerExecution || workflowInfo().continueAsNewSuggested)) {
          await condition(allHandlersFinished);
          await continueAsNew<typeof runWorkflow>({ ...input, conversation: { turns: inbox.state.turns, executions: Object.fromEntries(executions), failed: [...failed] } });
        }
      }
      await condition(allHandlersFinished);
    } catch (error) {
      if (error instanceof ContinueAsNew) throw error;
      await closeCancelled(executions, failed);
      throw error;
    }
    await closeGraphSteps(executions, failed);
    if (stopped) return await finish('stopped', stopped);
    return await finish('completed', idle ? `Idle timeout: no message within ${idleSeconds} s` : null);
  }

  async function closeCancelled(executions: Map<string, number>, failed: Set<string>): Promise<void> {
    await CancellationScope.nonCancellable(async () => {
      await closeGraphSteps(executions, failed);
      await finish('cancelled', 'Cancelled by request');
    });
  }

  async function closeGraphSteps(executions: Map<string, number>, failed: Set<string>): Promise<void> {
    for (const stepUuid of executions.keys()) {
      await bookkeeping.closeGraphStep({ run_uuid: input.run_uuid, user_id: input.user_id, instance_uuid: instanceOf.get(stepUuid)!, failed: failed.has(stepUuid) });
    }
  }

  if (input.definition.graph && messages) return await runConversation(input.definition.graph, messages);
  if (input.definition.graph) return await runGraph(input.definition.graph);

  // A continued execution starts inside the looping step where the previous one stopped.
  let resume = input.continued ?? null;
  let current: StepDefinition | null = null;
  let previousOutput: string | null = resume?.previous_step_uuid ?? input.resume?.previous_step_uuid ?? null;
  const historySize = input.definition.output_history_size;
  // Where this execution starts: inside the loop an earlier execution left, at a resumed run's step, or at the first step.
  const startUuid = resume?.step_uuid ?? input.resume?.from_step_uuid;
  try {
    const first = startUuid ? input.definition.steps.find((step) => step.uuid === startUuid)! : nextStep(input.definition, null);
    for (let step = first; step; step = nextStep(input.definition, step.uuid)) {
      current = step;
      const context: StepContext = {
        run_uuid: input.run_uuid,
        user_id: input.user_id,
        instance_uuid: instanceOf.get(step.uuid)!,
        previous_step_uuid: previousOutput,
        ...(historySize ? { output_history_size: historySize } : {}),
      };
      if ((step.type === 'custom_llm' || step.type === 'custom_agent') && step.loop) {
        await runLoop(step, context, resume);
        resume = null;
      } else if (step.type === 'custom_llm') {
        await activitiesFor(step).runLlmStep({ ...context, step });
      } else if (step.type === 'custom_agent') {
        await runAgent(step, context);
      } else if (step.type === 'human_input') {
        await runHumanInput(step, context);
      } else if (step.type === 'stop_checker') {
        const check = await activitiesFor(step).runStopChecker({ ...context, step });
        if (check.stopped) return await finish('stopped', check.reason);
        continue; // a stop checker produces no output: $previous_output still means the step before it
      } else {
        throw ApplicationFailure.nonRetryable(`Step "${step.name}" is a ${step.type}, which runs only in graph workflows`, 'UnsupportedStep');
      }
      previousOutput = step.uuid;
    }
    current = null;
    return await finish('completed', null);
  } catch (error) {
    if (error instanceof ContinueAsNew) throw error;
    const interrupted = current;
    const iteration = currentIteration;
    if (isCancellation(error) || CancellationScope.current().consideredCancelled) {
      await CancellationScope.nonCancellable(async () => {
        if (iteration) await bookkeeping.failStep({ instance_uuid: iteration, error_message: 'Cancelled while running' });
        if (interrupted) await bookkeeping.failStep({ instance_uuid: instanceOf.get(interrupted.uuid)!, error_message: 'Cancelled while running' });
        await finish('cancelled', 'Cancelled by request');
      });
      throw error;
    }
    if (!interrupted) throw error;
    const message = `Step "${interrupted.name}" failed: ${failureMessage(error)}`;
    if (iteration) await bookkeeping.failStep({ instance_uuid: iteration, error_message: failureMessage(error) });
    await bookkeeping.failStep({ instance_uuid: instanceOf.get(interrupted.uuid)!, error_message: failureMessage(error) });
    // In a chain every step before the failed one completed (or was carried over by a resume): their outputs
    // stay readable, and a resume from the failed step reuses them.
    await finish(input.definition.steps.indexOf(interrupted) > 0 ? 'partial_success' : 'failed', message);
    throw ApplicationFailure.nonRetryable(message, 'StepFailed');
  }
}
