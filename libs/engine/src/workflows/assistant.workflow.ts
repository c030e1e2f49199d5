// The assistant as a Temporal workflow: one execution per session (continued as new every few turns),
// one Update per user message. A turn clarifies, then generates (model calls and tool calls, each an activity),
// validates, dry-runs the candidate as a child run workflow and saves it; validation issues and failed dry runs
// go back to the model. The session stays open after a save (the next message edits what it saved) and after
// a failure a message can fix; it closes when the workflow it edits is gone, no message comes for a day, or
// it has taken ASSISTANT_MAX_TURNS messages.
// Activities write the session's state and events to MySQL; the workflow keeps only counters.
import {
  ActivityFailure,
  ApplicationFailure,
  ChildWorkflowFailure,
  condition,
  continueAsNew,
  defineUpdate,
  executeChild,
  patched,
  proxyActivities,
  setHandler,
  uuid4,
  workflowInfo,
} from '@temporalio/workflow';
import {
  ASSISTANT_BUSY,
  ASSISTANT_CLOSED,
  ASSISTANT_CONVERSATION_PATCH,
  ASSISTANT_CORRECTION_ROUNDS,
  ASSISTANT_IDLE_TIMEOUT_SECONDS,
  ASSISTANT_MAX_TURNS,
  ASSISTANT_MAX_TOOL_ROUNDS,
  ASSISTANT_MESSAGE_UPDATE,
  ASSISTANT_SOURCE_DELETED,
  ASSISTANT_WORKFLOW_CHANGED,
  RUN_WORKFLOW_TYPE,
  TURNS_PER_EXECUTION,
  runWorkflowId,
  type AssistantActivities,
  type AssistantMessageArgs,
  type AssistantSessionInput,
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
const work = proxyActivities<AssistantActivities>({
  ...BOOKKEEPING_OPTIONS,
  startToCloseTimeout: '1 minute',
  retry: { ...BOOKKEEPING_OPTIONS.retry, maximumAttempts: 10 },
});

const refuse = (type: string, message: string) => ApplicationFailure.create({ type, message, nonRetryable: true });

/** The innermost cause of an activity's or the child run's failure. */
function rootOf(error: unknown): { message?: string; type?: string } | undefined {
  let current = error as { message?: string; type?: string; cause?: unknown } | undefined;
  while (current?.cause) current = current.cause as typeof current;
  return current;
}

/** Why an activity or the child run failed, as the innermost message. */
const reasonOf = (error: unknown): string => rootOf(error)?.message || String(error);

/** The ERROR event's code for an activity that failed for good: what it raised, else whose call it was. */
function errorCodeOf(error: ActivityFailure): string {
  const type = rootOf(error)?.type;
  if (type === ASSISTANT_SOURCE_DELETED || type === ASSISTANT_WORKFLOW_CHANGED) return type;
  return error.activityType === 'clarify' || error.activityType === 'generate' ? 'PROVIDER_ERROR' : 'PROCESSING_ERROR';
}

/** How a turn ended: waiting on the person's answer, saved, failed (open or not, per the session), or closed. */
type TurnEnd = 'clarification' | 'completed' | 'failed' | 'closed';

interface Turn {
  session_uuid: string;
  turn: number;
  target_uuid: string;
  /** The model-call activities, with the session's heartbeat timeout. */
  model: AssistantActivities;
  /** A save or a failure a message can fix leaves the session open (sessions started before the patch end there). */
  staysOpen: boolean;
  /** Rounds of tool calls one generation may make, and generations after the first one turn may ask for. */
  maxToolRounds: number;
  correctionRounds: number;
}

const keyOf = (turn: Turn, name: string) => ({ session_uuid: turn.session_uuid, turn: turn.turn, call_key: `t${turn.turn}:${name}` });

/** Stage 2: model calls until one answers a candidate; at most `maxToolRounds` rounds of tool calls. */
async function generate(turn: Turn, attempt: number): Promise<void> {
  for (let round = 0; ; round++) {
    const { tool_calls } = await turn.model.generate({
      ...keyOf(turn, `gen${attempt}.${round}`),
      with_tools: round < turn.maxToolRounds,
    });
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
    const result = await executeChild<(input: typeof prepared) => Promise<RunWorkflowResult>>(RUN_WORKFLOW_TYPE, {
      workflowId: runWorkflowId(prepared.run_uuid),
      args: [prepared],
    });
    outcome = { run_uuid: prepared.run_uuid, status: result.status, error_message: result.error_message };
  } catch (error) {
    if (!(error instanceof ChildWorkflowFailure)) throw error;
    outcome = { run_uuid: prepared.run_uuid, status: 'failed', error_message: reasonOf(error) };
  }
  return (await work.recordDryRun({ ...keyOf(turn, `dryrun${attempt}.end`), outcome })).ok;
}

/** One user message: clarify, then generate, check, dry-run and save, with correction rounds between. */
async function runTurn(turn: Turn, text: string): Promise<TurnEnd> {
  await work.recordUserMessage({ ...keyOf(turn, 'user'), text });
  if (!(await turn.model.clarify(keyOf(turn, 'clarify'))).ready) return 'clarification';
  for (let attempt = 0; attempt <= turn.correctionRounds; attempt++) {
    await generate(turn, attempt);
    if (!(await work.checkCandidate({ ...keyOf(turn, `check${attempt}`), target_uuid: turn.target_uuid })).ok) continue;
    if (!(await dryRun(turn, attempt))) continue;
    await work.saveCandidate({ ...keyOf(turn, 'save'), target_uuid: turn.target_uuid, ...(turn.staysOpen ? { keeps_open: true } : {}) });
    return 'completed';
  }
  const message = `The workflow still had problems after ${turn.correctionRounds} correction rounds`;
  await work.failTurn({
    ...keyOf(turn, 'fail'),
    error_code: 'CORRECTIONS_EXHAUSTED',
    message,
    ...(turn.staysOpen ? { is_recoverable: true } : {}),
  });
  return 'failed';
}

/**
 * Runs one turn; an activity that failed for good fails the turn, with why. Only the workflow it edits being
 * gone closes the session: a message can fix the rest (a provider down past its retries, an edit elsewhere).
 */
async function runTurnSafely(turn: Turn, text: string): Promise<TurnEnd> {
  try {
    return await runTurn(turn, text);
  } catch (error) {
    if (!(error instanceof ActivityFailure)) throw error;
    if (!turn.staysOpen) {
      await work.failTurn({ ...keyOf(turn, 'fail'), error_code: 'PROCESSING_ERROR', message: reasonOf(error) });
      return 'failed';
    }
    const error_code = errorCodeOf(error);
    const closes = error_code === ASSISTANT_SOURCE_DELETED;
    await work.failTurn({ ...keyOf(turn, 'fail'), error_code, message: reasonOf(error), is_recoverable: !closes });
    return closes ? 'closed' : 'failed';
  }
}

export async function assistantSessionWorkflow(input: AssistantSessionInput): Promise<void> {
  const model = modelCalls(input.heartbeat_timeout_seconds ?? 30);
  // Sessions started before the patch keep their old life on replay: they end at their first save or failure.
  const staysOpen = patched(ASSISTANT_CONVERSATION_PATCH);
  const state: { turns: number; inbox: string | null; busy: boolean; ended: boolean } = {
    turns: input.continued?.turns ?? 0,
    inbox: null,
    busy: false,
    ended: false,
  };
  // The workflow a create or copy session saves: drawn once, so every dry run and every save agree on it.
  const target_uuid =
    input.continued?.target_uuid ?? (input.source_workflow_uuid && input.mode === 'edit' ? input.source_workflow_uuid : uuid4());
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
  const turnsPerExecution = input.turns_per_execution ?? TURNS_PER_EXECUTION;
  const idleSeconds = input.idle_timeout_seconds ?? ASSISTANT_IDLE_TIMEOUT_SECONDS;
  const maxTurns = input.max_turns ?? ASSISTANT_MAX_TURNS;
  // Sessions started before the input carried the rounds go on with the constants they were started under.
  const rounds = {
    maxToolRounds: input.max_tool_rounds ?? ASSISTANT_MAX_TOOL_ROUNDS,
    correctionRounds: input.correction_rounds ?? ASSISTANT_CORRECTION_ROUNDS,
  };
  let turnsThisExecution = 0;
  // Turns until one closes the session, or until it idles out.
  while (!state.ended) {
    // Between turns, with no message taken: the history stays small, and the session's state is in MySQL.
    if (staysOpen && state.inbox === null && (turnsThisExecution >= turnsPerExecution || workflowInfo().continueAsNewSuggested)) {
      await continueAsNew<typeof assistantSessionWorkflow>({ ...input, continued: { turns: state.turns, target_uuid } });
    }
    if (!(await condition(() => state.inbox !== null, `${idleSeconds} seconds`))) {
      if (staysOpen)
        await close(
          'idle',
          'SESSION_IDLE',
          `No message for ${idleSeconds % 3600 ? `${idleSeconds} seconds` : `${idleSeconds / 3600} hours`}: the session has ended; start a new one`,
        );
      return;
    }
    const text = state.inbox!;
    state.inbox = null;
    state.turns += 1;
    const end = await runTurnSafely(
      { session_uuid: input.session_uuid, turn: state.turns, target_uuid, model, staysOpen, ...rounds },
      text,
    );
    state.ended = staysOpen ? end === 'closed' : end !== 'clarification';
    state.busy = false;
    turnsThisExecution += 1;
    if (staysOpen && !state.ended && state.turns >= maxTurns)
      await close('full', 'SESSION_FULL', `This session has taken its ${maxTurns} messages: start a new one (what it saved stays)`);
  }

  /** Ends the session between turns; refuses any message from here on (one taken now would never be answered). */
  async function close(name: string, error_code: string, message: string): Promise<void> {
    state.ended = true;
    await work.closeSession({
      session_uuid: input.session_uuid,
      turn: state.turns,
      call_key: `t${state.turns}:${name}`,
      error_code,
      message,
    });
  }
}
