// A conversational run (a graph workflow with is_conversational): open until an agent calls the end tool or no message comes within
// idle_timeout_seconds. Each message is a turn (a walk from the entry node to END) run by the update's
// handler; every `turns_per_execution` turns (or when Temporal suggests it) the run continues as new,
// carrying the turn count and execution counters (the conversation's messages are in MySQL).
import { allHandlersFinished, ApplicationFailure, condition, ContinueAsNew, continueAsNew, workflowInfo } from '@temporalio/workflow';
import { DEFAULT_IDLE_TIMEOUT_SECONDS, RUN_QUARANTINED, TURNS_PER_EXECUTION, type RunWorkflowResult } from '@app/contracts';
import type { ConversationInbox } from './conversation';
import type { WalkPlan } from './graph/walk-plan';
import { graphWalker } from './graph/walker';
import { closeCancelled, closeGraphSteps, finish } from './run-end';
import type { RunScope, RunWorkflowFn } from './run-scope';

export async function runConversation(scope: RunScope, plan: WalkPlan, inbox: ConversationInbox): Promise<RunWorkflowResult> {
  const { input, counters } = scope;
  const { graph } = plan;
  const idleSeconds = graph.idle_timeout_seconds ?? DEFAULT_IDLE_TIMEOUT_SECONDS;
  const walker = graphWalker(scope, plan, new Map(Object.entries(input.conversation?.executions ?? {})));
  const { executions, failed } = walker.tally;
  for (const stepUuid of input.conversation?.failed ?? []) failed.add(stepUuid);
  const turnsPerExecution = input.turns_per_execution ?? TURNS_PER_EXECUTION;
  let turnsThisExecution = 0;
  let stopped: string | null = null;
  /** A turn's call killed its workers (RUN_QUARANTINED): the conversation closes and the run ends failed. */
  let quarantined: string | null = null;
  inbox.serve(input.conversation?.turns ?? 0, async (turn, content) => {
    await scope.bookkeeping.receiveMessage({ run_uuid: input.run_uuid, turn, content });
    counters.endRequested = false;
    const outcome = await walker.walk({ step_uuid: graph.entry_node, previous_step_uuid: null }, turn);
    turnsThisExecution += 1;
    stopped = outcome.stopped;
    const problem = walker.problemOf(outcome);
    if (outcome.quarantined) quarantined = problem;
    if (counters.endRequested || stopped || quarantined) inbox.state.closing = true;
    const reply = await scope.bookkeeping.answerTurn({
      run_uuid: input.run_uuid,
      user_id: input.user_id,
      turn,
      output_id: outcome.last_output_id,
      closing: inbox.state.closing,
    });
    const status = quarantined ? 'failed' : inbox.state.closing ? 'completed' : problem ? 'failed' : 'awaiting_input';
    return { turn, reply, status, ...(problem ? { error_message: problem } : {}) };
  });
  let idle = false;
  try {
    if (!input.conversation) await scope.bookkeeping.openConversation({ run_uuid: input.run_uuid });
    while (!inbox.state.closing) {
      const turnsBefore = inbox.state.turns;
      const active = await condition(
        () => inbox.state.busy || inbox.state.closing || inbox.state.turns !== turnsBefore,
        idleSeconds * 1000,
      );
      if (!active) {
        idle = true;
        inbox.state.closing = true;
        break;
      }
      await condition(() => !inbox.state.busy);
      if (!inbox.state.closing && (turnsThisExecution >= turnsPerExecution || workflowInfo().continueAsNewSuggested)) {
        await condition(allHandlersFinished);
        await continueAsNew<RunWorkflowFn>({
          ...input,
          conversation: { turns: inbox.state.turns, executions: Object.fromEntries(executions), failed: [...failed] },
        });
      }
    }
    await condition(allHandlersFinished);
  } catch (error) {
    if (error instanceof ContinueAsNew) throw error;
    await closeCancelled(scope, walker.tally, true);
    throw error;
  }
  await closeGraphSteps(scope, walker.tally);
  if (quarantined) {
    await finish(scope, 'failed', quarantined);
    throw ApplicationFailure.nonRetryable(quarantined, RUN_QUARANTINED);
  }
  if (stopped) return await finish(scope, 'stopped', stopped);
  return await finish(scope, 'completed', idle ? `Idle timeout: no message within ${idleSeconds} s` : null);
}
