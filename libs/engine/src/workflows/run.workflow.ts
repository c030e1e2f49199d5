// The run workflow: walks a snapshot of the definition and runs each step as activities. It holds no data
// of its own beyond references; every write goes through an activity. A chain and a graph take the same
// walk (graph/walker.ts); a conversational graph walks once per message (conversation-run.ts).
import { upsertSearchAttributes, uuid4, workflowInfo } from '@temporalio/workflow';
import type { PreparedRun, RunWorkflowInput, RunWorkflowResult } from '@app/contracts';
import { budgetGate } from './budget';
import { conversationInbox } from './conversation';
import { runConversation } from './conversation-run';
import { walkPlan } from './graph/walk-plan';
import { humanInputInbox } from './human-input';
import { bookkeepingOf, runScope, runsLocalActivities, runsLocalAgentRounds } from './run-scope';
import { spendWait } from './spend-wait';
import { runWalk } from './walk-run';

/** A Temporal Schedule starts the workflow with a request: record the run first, under a uuid of our own. */
async function prepared(request: RunWorkflowInput): Promise<PreparedRun> {
  if (!('scheduled' in request)) return request;
  const run = await bookkeepingOf(runsLocalActivities()).prepareScheduledRun({
    ...request.scheduled,
    run_uuid: uuid4(),
    temporal_workflow_id: workflowInfo().workflowId,
  });
  upsertSearchAttributes({ StepwiseRunUuid: [run.run_uuid] });
  return { ...run, heartbeat_timeout_seconds: request.heartbeat_timeout_seconds };
}

export async function runWorkflow(request: RunWorkflowInput): Promise<RunWorkflowResult> {
  // Decided here, first: where the patches' markers sit in every new history.
  runsLocalActivities();
  runsLocalAgentRounds();
  // Before the first await, so an answer or a message never reaches a workflow without its handler.
  const inbox = humanInputInbox();
  const messages = 'definition' in request && request.definition.graph?.is_conversational ? conversationInbox() : null;
  const budget = 'definition' in request ? budgetGate(request.budget, request.run_uuid) : null;
  const spend = spendWait();
  const input = await prepared(request);
  const scope = runScope(input, inbox, budget, spend);
  const plan = walkPlan(input.definition);
  return messages ? await runConversation(scope, plan, messages) : await runWalk(scope, plan);
}
