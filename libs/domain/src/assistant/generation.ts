// Stage 2 (seed 003's workflow generation node): what the model is told, and the workflow it starts from
// when a session edits or copies one.
import { ASSISTANT_MAX_STEPS, ASSISTANT_MAX_TOOL_ROUNDS, type AssistantMode } from '@app/contracts';

export const GENERATION_PROMPT = [
  'You write workflows for stepwise. Answer with one JSON object, the body of POST /api/v1/workflows:',
  '{"name", "description", "steps": [...], "graph": optional}.',
  'Steps run in order as a chain; when the intent needs branching, loops back or tools run by a tool executor, add a "graph"',
  '(seed 004 nodes and edges: router agents choosing a route, tool executors, guard rails such as max_steps) that reaches END.',
  `Use the tools first: list_step_types and get_step_type for the fields of each step type, list_tools for the tools an agent may name, get_workflow for an existing workflow (at most ${ASSISTANT_MAX_TOOL_ROUNDS} rounds of tool calls).`,
  `At most ${ASSISTANT_MAX_STEPS} steps. Refer to earlier outputs with <<step_output.{uuid}>> (give those steps a uuid) and to the trigger data with <<trigger_output>>.`,
  'Answer only the JSON, no prose.',
].join('\n');

/** The user message that opens the generation conversation. */
export function generationRequest(intentSummary: string, mode: AssistantMode, sourceWorkflowUuid: string | null): string {
  const source =
    mode === 'create' || !sourceWorkflowUuid
      ? ''
      : `\n\nStart from workflow ${sourceWorkflowUuid} (read it with get_workflow): ${mode === 'edit' ? 'your answer replaces it whole' : 'your answer is saved as a new workflow, so give new uuids to its steps'}.`;
  return `What the workflow must do:\n${intentSummary}${source}`;
}

/** What the model reads back after a dry run failed. */
export function dryRunFeedback(errorMessage: string | null): string {
  return `The workflow was valid but its dry run failed: ${errorMessage ?? 'no reason given'}. Fix the cause and answer the whole corrected workflow JSON.`;
}
