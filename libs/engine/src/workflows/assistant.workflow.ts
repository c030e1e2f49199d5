// Seed 003's assistant as a Temporal workflow: one execution per session, one Update per user message.
// A turn clarifies, then generates (model calls and tool calls, each an activity), validates, dry-runs the
// candidate as a child run workflow and saves it; validation issues and failed dry runs go back to the model.
// Activities write the session's state and events to MySQL; the workflow keeps only counters.
import { ActivityFailure, ApplicationFailure, ChildWorkflowFailure, condition, defineUpdate, executeChild, proxyActivities, setHandler, uuid4 } from '@temporalio/workflow';
import {
  ASSISTANT_BUSY,
  ASSISTANT_CLOSED,
  ASSISTANT_CORRECTION_ROUNDS,
  ASSISTANT_IDLE_TIMEOUT_SECONDS,
  ASSISTANT_MAX_TOOL_ROUNDS,
  ASSISTANT_MESSAGE_UPDATE,
  RUN_WORKFLOW_TYPE,
  runWorkflowId,
  type AssistantActivities,
  type AssistantMessageArgs,
  type AssistantSessionInput,
  type AssistantStage,
  type AssistantTurnResult,
  type DryRunOutcome,
  type RunWorkflowResult,
} from '@app/contracts';
import { BOOKKEEPING_OPTIONS } from './activity-options';

export const assistantMessageUpdate = defineUpdate<AssistantTurnResult, [AssistantMessageArgs]>(ASSISTANT_MESSAGE_UPDATE);

// Model calls: retried by Temporal; a completed one is stored with its key, so a retry never pays twice.
const modelCalls = (heartbeatSeconds: number) =>
  proxyActivities<AssistantActivities>({
    summary: 'assistant model call',
    startToCloseTimeout: '10 minutes',
    heartbeatTimeout: `${heartbeatSeconds} seconds`,
    retry: { maximumAttempts: 5, initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds' },
  });
const work = proxyActivities<AssistantActivities>({ ...BOOKKEEPING_OPTIONS, startToCloseTimeout: '1 minute', retry: { ...BOOKKEEPING_OPTIONS.retry, maximumAttempts: 10 } });

const refuse = (type: string, message: string) => ApplicationFailure.create({ type, message, nonRetryable: true });

/** Why an activity or the child run failed, as the innermost message. */
function reasonOf(error: unknown): string {
  let current = error as { message?: string; cause?: unknown } | undefined;
  while (current?.cause) current = current.cause as typeof current;
  return current?.message || String(error);
}

interface Turn {
  session_uuid: string;
  turn: number;
  target_uuid: string;
  /** The model-call activities, with the session's heartbeat timeout. */
  model: AssistantActivities;
}

const keyOf = (turn: Turn, name: string) => ({ session_uuid: turn.session_uuid, turn: turn.turn, call_key: `t${turn.turn}:${name}` });

/** Stage 2: model calls until one answers a candidate; at most ASSISTANT_MAX_TOOL_ROUNDS rounds of tool calls. */
async function generate(turn: Turn, attempt: number): Promise<void> {
  for (let round = 0; ; round++) {
    const { tool_calls } = await turn.model.generate({ ...keyOf(turn, `gen${attempt}.${round}`), with_tools: round < ASSISTANT_MAX_TOOL_ROUNDS });
    if (!tool_calls.length) return;
    for (const [i, call] of tool_calls.entries()) await work.callAssistantTool({ ...keyOf(turn, `tool${attempt}.${round}.${i}`), call });
  }
}

/** Stage 4: the candidate runs once as a dry run (a child run workflow) before anything is saved. */
async function dryRun(turn: Turn, attempt: number): Promise<boolean> {
  const run_uuid = uuid4();
  const prepared = await work.prepareDryRun({ ...keyOf(turn, `dryrun${attempt}`), target_uuid: turn.target_uuid, run_uuid });
  let outcome: DryRunOutcome;
  try {
    const result = await executeChild<(input: typeof prepared) => Promise<RunWorkflowResult>>(RUN_WORKFLOW_TYPE, { workflowId: runWorkflowId(prepared.run_uuid), args: [prepared] });
    outcome = { run_uuid: prepared.run_uuid, status: result.status, error_message: result.error_message };
  } catch (error) {
    if (!(error instanceof ChildWorkflowFailure)) throw error;
    outcome = { run_uuid: prepared.run_uuid, status: 'failed', error_message: reasonOf(error) };
  }
  return (await work.recordDryRun({ ...keyOf(turn, `dryrun${attempt}.end`), outcome })).ok;
}

/** One user message: clarify, then generate, check, dry-run and save, with correction rounds between. */
async function runTurn(turn: Turn, text: string): Promise<AssistantStage> {
  await work.recordUserMessage({ ...keyOf(turn, 'user'), text });
  if (!(await turn.model.clarify(keyOf(turn, 'clarify'))).ready) return 'clarification';
  for (let attempt = 0; attempt <= ASSISTANT_CORRECTION_ROUNDS; attempt++) {
    await generate(turn, attempt);
    if (!(await work.checkCandidate({ ...keyOf(turn, `check${attempt}`), target_uuid: turn.target_uuid })).ok) continue;
    if (!(await dryRun(turn, attempt))) continue;
    await work.saveCandidate({ ...keyOf(turn, 'save'), target_uuid: turn.target_uuid });
    return 'completed';
  }
  await work.failTurn({ ...keyOf(turn, 'fail'), error_code: 'CORRECTIONS_EXHAUSTED', message: `The workflow still had problems after ${ASSISTANT_CORRECTION_ROUNDS} correction rounds` });
  return 'failed';
}

/** Runs one turn; an activity that failed for good ends the session failed, with why. */
async function runTurnSafely(turn: Turn, text: string): Promise<AssistantStage> {
  try {
    return await runTurn(turn, text);
  } catch (error) {
    if (!(error instanceof ActivityFailure)) throw error;
    await work.failTurn({ ...keyOf(turn, 'fail'), error_code: 'PROCESSING_ERROR', message: reasonOf(error) });
    return 'failed';
  }
}

export async function assistantSessionWorkflow(input: AssistantSessionInput): Promise<void> {
  const model = modelCalls(input.heartbeat_timeout_seconds ?? 30);
  const state: { turns: number; inbox: string | null; busy: boolean; ended: boolean } = { turns: 0, inbox: null, busy: false, ended: false };
  // The workflow a create or copy session saves: drawn once, so every dry run and the save agree on it.
  const target_uuid = input.source_workflow_uuid && input.mode === 'edit' ? input.source_workflow_uuid : uuid4();
  // The Update only hands the message over (the caller follows the turn's events): accepted at once, or
  // refused by the validator, so a refused message never enters the history.
  setHandler(
    assistantMessageUpdate,
    ({ text }: AssistantMessageArgs): AssistantTurnResult => {
      state.busy = true;
      state.inbox = text;
      return { turn: state.turns + 1 };
    },
    {
      validator: (_message: AssistantMessageArgs) => {
        if (state.ended) throw refuse(ASSISTANT_CLOSED, 'The session has ended: start a new one');
        if (state.busy) throw refuse(ASSISTANT_BUSY, 'A turn is running: send the next message once it has finished');
      },
    },
  );
  // Turns until one ends the session (saved or failed), or until it idles out.
  while (!state.ended) {
    if (!(await condition(() => state.inbox !== null, `${ASSISTANT_IDLE_TIMEOUT_SECONDS} seconds`))) return;
    const text = state.inbox!;
    state.inbox = null;
    state.turns += 1;
    const stage = await runTurnSafely({ session_uuid: input.session_uuid, turn: state.turns, target_uuid, model }, text);
    state.ended = stage === 'completed' || stage === 'failed';
    state.busy = false;
  }
}
