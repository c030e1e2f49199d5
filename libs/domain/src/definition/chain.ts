// Rules across the steps of a chain: unique names and uuids, and references (placeholders, stop
// conditions) only to steps that exist and come earlier.
import type { CustomAgentStep, CustomLlmStep, StepDefinition } from '@app/contracts';
import { ErrorCode } from '../errors';
import { findPlaceholders } from '../placeholders';
import { throwIssues, type Issue } from './issues';
import { loopSourceRef } from './loop';

function referenceIssue(target: string, at: number, positions: Map<string, number>, field: string, ordered: boolean): Issue | null {
  const position = positions.get(target);
  if (position === undefined) {
    return { code: ErrorCode.UnknownStepReference, field, message: `${field} refers to step ${target}, which is not in this workflow` };
  }
  if (ordered && position >= at) {
    return { code: ErrorCode.ForwardStepReference, field, message: `${field} refers to step ${target}, which does not come earlier` };
  }
  return null;
}

/**
 * Every cross-step problem: duplicate names (case-insensitive) and uuids, placeholders and stop conditions
 * naming a step that is not in the chain or does not come earlier. `$previous_output` is always fine (the
 * first step's is the trigger data). With `ordered: false` (graphs) references may point anywhere.
 */
export function stepChainIssues(steps: readonly StepDefinition[], field = 'steps', { ordered = true } = {}): Issue[] {
  const issues: Issue[] = [];
  const positions = new Map<string, number>();
  const names = new Map<string, number>();
  steps.forEach((step, i) => {
    if (positions.has(step.uuid)) {
      issues.push({
        code: ErrorCode.DuplicateStepUuid,
        field: `${field}[${i}].uuid`,
        message: `step uuid ${step.uuid} is already used by ${field}[${positions.get(step.uuid)}]`,
      });
    } else positions.set(step.uuid, i);
    const name = step.name.trim().toLowerCase();
    if (names.has(name)) {
      issues.push({
        code: ErrorCode.DuplicateStepName,
        field: `${field}[${i}].name`,
        message: `step name "${step.name}" is already used by ${field}[${names.get(name)}]`,
      });
    } else names.set(name, i);
  });
  steps.forEach((step, i) => {
    if (step.type === 'stop_checker') {
      step.stop_conditions.forEach((condition, j) => {
        const at = `${field}[${i}].stop_conditions[${j}].step_definition_uuid`;
        const issue = referenceIssue(condition.step_definition_uuid.toLowerCase(), i, positions, at, ordered);
        if (issue) issues.push(issue);
      });
      return;
    }
    if (!hasPrompt(step)) return;
    const seen = new Set<string>();
    for (const ref of findPlaceholders(step.system_prompt)) {
      if (ref.kind !== 'step' || !ref.step_uuid || seen.has(ref.step_uuid)) continue;
      seen.add(ref.step_uuid);
      // A looping step may read its own earlier iterations by index: <<step_output.{self}[-1]>>.
      if (step.loop && ref.step_uuid === step.uuid && ref.index !== undefined) continue;
      const issue = referenceIssue(ref.step_uuid, i, positions, `${field}[${i}].system_prompt`, ordered);
      if (issue) issues.push(issue);
    }
    const source = step.loop?.type === 'for_each' ? loopSourceRef(step.loop.input_path) : null;
    if (source?.step_uuid) {
      const issue = referenceIssue(source.step_uuid, i, positions, `${field}[${i}].loop.input_path`, ordered);
      if (issue) issues.push(issue);
    }
  });
  return issues;
}

/** Throws one error for the first problem of the chain, listing all in `details.errors`. */
export function validateStepChain(steps: readonly StepDefinition[], field = 'steps'): void {
  throwIssues(stepChainIssues(steps, field));
}

/** The steps whose prompt (and loop) may name other steps: a human_input prompt is shown as written. */
function hasPrompt(step: StepDefinition): step is CustomLlmStep | CustomAgentStep {
  return step.type === 'custom_llm' || step.type === 'custom_agent';
}

/** The uuids of the steps whose definition refers to `stepUuid`. */
export function stepsReferring(steps: readonly StepDefinition[], stepUuid: string): string[] {
  return steps
    .filter((step) =>
      step.type === 'stop_checker'
        ? step.stop_conditions.some((c) => c.step_definition_uuid.toLowerCase() === stepUuid)
        : hasPrompt(step) &&
          (findPlaceholders(step.system_prompt).some((ref) => ref.step_uuid === stepUuid) ||
            (step.loop?.type === 'for_each' && loopSourceRef(step.loop.input_path)?.step_uuid === stepUuid)),
    )
    .map((step) => step.uuid);
}
