// Stage 2 (workflow generation): what the model is told, the workflow it starts from when a
// session edits or copies one (or edits the one it saved), and the attempt a failed turn left.
import { createHash } from 'node:crypto';
import type { ChatMessage } from '@app/contracts';
import { canonicalJson } from '../tools/tool-manifest';

/** What the model is told, with the limits it works under (ASSISTANT_MAX_TOOL_ROUNDS, ASSISTANT_MAX_STEPS). */
export const generationPrompt = (limits: { maxToolRounds: number; maxSteps: number }): string =>
  [
    'You write workflows for stepwise. Answer with one JSON object, the body of POST /api/v1/workflows:',
    '{"name", "description", "steps": [...], "graph": optional}.',
    'Steps run in order as a chain; when the intent needs branching, loops back or tools run by a tool executor, add a "graph"',
    '(nodes and edges: router agents choosing a route, tool executors, guard rails such as max_steps) that reaches END.',
    `Use the tools first: list_step_types and get_step_type for the fields of each step type, list_tools for the tools an agent may name, get_workflow for an existing workflow (at most ${limits.maxToolRounds} rounds of tool calls).`,
    `At most ${limits.maxSteps} steps. Refer to earlier outputs with <<step_output.{uuid}>> (give those steps a uuid) and to the trigger data with <<trigger_output>>.`,
    'Answer only the JSON, no prose.',
  ].join('\n');

/** The workflow a generation starts from, as it is when the generation begins. */
export interface GenerationBase {
  /** edit: the answer replaces it (an edit session's source, or what the session saved); copy: saved as a new one. */
  as: 'edit' | 'copy';
  workflow_uuid: string;
  definition: unknown;
}

/** What a failed turn leaves for the next: the last workflow the model wrote and what was wrong with it. */
export interface FailedAttempt {
  candidate: unknown;
  problems: string;
}

/** The user message that opens the generation conversation. */
export function generationRequest(intentSummary: string, base: GenerationBase | null, failed: FailedAttempt | null = null): string {
  const parts = [`What the workflow must do:\n${intentSummary}`];
  if (base?.as === 'edit') {
    parts.push(
      `Start from workflow ${base.workflow_uuid} as it is now (below; get_workflow reads it too): your answer replaces it whole, so keep the uuids, steps and fields the change does not touch.\n${JSON.stringify(base.definition)}`,
    );
  } else if (base) {
    parts.push(
      `Start from workflow ${base.workflow_uuid} (below; get_workflow reads it too): your answer is saved as a new workflow, so give new uuids to its steps.\n${JSON.stringify(base.definition)}`,
    );
  }
  if (failed) {
    parts.push(
      `Your last attempt was not saved: ${failed.problems}\nGo on from it (below) with what the person said since, and fix those problems:\n${JSON.stringify(failed.candidate)}`,
    );
  }
  return parts.join('\n\n');
}

/** The stored workflow's definition as a hash: a save checks it is still the one the generation started from. */
export function definitionFingerprint(definition: unknown): string {
  return createHash('sha256').update(canonicalJson(definition)).digest('hex');
}

/** The correction the generation ended on (its last message, when it is one), for a failed turn to hand on. */
export function lastCorrection(generation: readonly ChatMessage[]): string | null {
  const last = generation[generation.length - 1];
  // [system, request] open every generation: a user message after them is a correction.
  return generation.length > 2 && last.role === 'user' && typeof last.content === 'string' ? last.content : null;
}

/** What the model reads back after a dry run failed. */
export function dryRunFeedback(errorMessage: string | null): string {
  return `The workflow was valid but its dry run failed: ${errorMessage ?? 'no reason given'}. Fix the cause and answer the whole corrected workflow JSON.`;
}
