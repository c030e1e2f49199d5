// The run workflow: walks a snapshot of the definition and runs each step as activities. It holds no
// data of its own beyond references; every write goes through an activity.
import { ApplicationFailure, CancellationScope, isCancellation, proxyActivities, upsertSearchAttributes, uuid4, workflowInfo } from '@temporalio/workflow';
import type {
  CustomAgentStep,
  FinalStatus,
  PreparedRun,
  RunActivities,
  RunWorkflowInput,
  RunWorkflowResult,
  StepContext,
  StepDefinition,
} from '@app/contracts';
import { BOOKKEEPING_OPTIONS, NOTIFICATION_OPTIONS, stepActivityOptions } from './activity-options';
import { nextStep } from './next-step';

const bookkeeping = proxyActivities<RunActivities>(BOOKKEEPING_OPTIONS);
const notifications = proxyActivities<RunActivities>(NOTIFICATION_OPTIONS);
const DEFAULT_HEARTBEAT_SECONDS = 30;
const DEFAULT_MAX_ITERATIONS = 10;

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
  const input = await prepared(request);
  const heartbeat = input.heartbeat_timeout_seconds ?? DEFAULT_HEARTBEAT_SECONDS;
  const instanceOf = new Map(input.instances.map((ref) => [ref.step_uuid, ref.instance_uuid]));
  const activitiesFor = (step: StepDefinition, summary = `${step.name} (${step.type})`) =>
    proxyActivities<RunActivities>(stepActivityOptions(step, heartbeat, summary));

  async function runAgent(step: CustomAgentStep, context: StepContext): Promise<void> {
    const { tools, conversation_length } = await activitiesFor(step).startAgentStep({ ...context, step });
    // The conversation itself stays in MySQL: the workflow tracks its length and the calls to make.
    let length = conversation_length;
    const maxIterations = step.max_iterations ?? DEFAULT_MAX_ITERATIONS;
    for (let turn = 1; turn <= maxIterations; turn++) {
      const result = await activitiesFor(step, `${step.name}: model turn ${turn}`).agentTurn({ ...context, step, tools, turn, conversation_length: length });
      length = result.conversation_length;
      if (!result.tool_calls.length) {
        await activitiesFor(step).completeAgentStep({ ...context, step, conversation_length: length });
        return;
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

  let current: StepDefinition | null = null;
  // A resumed run starts at its step, after the ones carried over from its parent (they count as completed).
  let previousOutput: string | null = input.resume?.previous_step_uuid ?? null;
  let completedSteps = input.resume?.carried_steps ?? 0;
  const first = input.resume ? input.definition.steps.find((step) => step.uuid === input.resume!.from_step_uuid)! : nextStep(input.definition, null);
  try {
    for (let step = first; step; step = nextStep(input.definition, step.uuid)) {
      current = step;
      const context: StepContext = {
        run_uuid: input.run_uuid,
        user_id: input.user_id,
        instance_uuid: instanceOf.get(step.uuid)!,
        previous_step_uuid: previousOutput,
      };
      if (step.type === 'custom_llm') {
        await activitiesFor(step).runLlmStep({ ...context, step });
      } else if (step.type === 'custom_agent') {
        await runAgent(step, context);
      } else if (step.type === 'stop_checker') {
        const check = await activitiesFor(step).runStopChecker({ ...context, step });
        if (check.stopped) return await finish('stopped', check.reason);
        completedSteps += 1;
        continue; // a stop checker produces no output: $previous_output still means the step before it
      } else {
        throw ApplicationFailure.nonRetryable(`Step "${step.name}" is a ${step.type}, which runs only in graph workflows`, 'UnsupportedStep');
      }
      completedSteps += 1;
      previousOutput = step.uuid;
    }
    current = null;
    return await finish('completed', null);
  } catch (error) {
    const interrupted = current;
    if (isCancellation(error) || CancellationScope.current().consideredCancelled) {
      await CancellationScope.nonCancellable(async () => {
        if (interrupted) await bookkeeping.failStep({ instance_uuid: instanceOf.get(interrupted.uuid)!, error_message: 'Cancelled while running' });
        await finish('cancelled', 'Cancelled by request');
      });
      throw error;
    }
    if (!interrupted) throw error;
    const message = `Step "${interrupted.name}" failed: ${failureMessage(error)}`;
    await bookkeeping.failStep({ instance_uuid: instanceOf.get(interrupted.uuid)!, error_message: failureMessage(error) });
    // Earlier steps' outputs stay readable, and a resume from the failed step reuses them.
    await finish(completedSteps > 0 ? 'partial_success' : 'failed', message);
    throw ApplicationFailure.nonRetryable(message, 'StepFailed');
  }
}
