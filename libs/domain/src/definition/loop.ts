// What the JSON Schema of a step's `loop` cannot say: which fields belong to which loop type, that
// for_each's input_path is one placeholder naming an array source, that repeat_until's predicate is a
// JSONPath, and that <<item>> is only meaningful inside a for_each.
import { LOOP_DEFAULTS, type StepLoop } from '@app/contracts';
import { jsonPathProblem } from '../conditions';
import { ErrorCode } from '../errors';
import { isJsonObject } from '../json-object';
import { findPlaceholders, type PlaceholderRef } from '../placeholders';
import { fieldPath, type Issue } from './issues';

const FIELDS_OF: Record<StepLoop['type'], string[]> = {
  for_each: ['input_path', 'max_items', 'max_concurrency', 'on_item_failure'],
  repeat_until: ['predicate_path', 'predicate_value', 'max_iters'],
};

/** The one placeholder a for_each input_path must be (trigger or step output), or null. */
export function loopSourceRef(inputPath: string): PlaceholderRef | null {
  const refs = findPlaceholders(inputPath);
  if (refs.length !== 1 || refs[0].raw !== inputPath.trim()) return null;
  return refs[0].kind === 'trigger' || refs[0].kind === 'step' ? refs[0] : null;
}

/** Problems of a step's `loop` (already shaped by the schema) and of loop placeholders in its prompt. */
export function loopIssues(step: Record<string, unknown>, prefix: string): Issue[] {
  const issues: Issue[] = [];
  const loop = step.loop;
  const loopField = fieldPath(prefix, 'loop');
  const issue = (field: string, message: string) =>
    issues.push({ code: ErrorCode.InvalidLoop, field: fieldPath(loopField, field), message: `${fieldPath(loopField, field)} ${message}` });
  if (isJsonObject(loop) && (loop.type === 'for_each' || loop.type === 'repeat_until')) {
    const type = loop.type;
    const other = type === 'for_each' ? 'repeat_until' : 'for_each';
    for (const key of FIELDS_OF[other]) if (key in loop) issue(key, `belongs to a ${other} loop, not ${type}`);
    for (const key of FIELDS_OF[type].filter((key) => key === 'input_path' || key.startsWith('predicate_')))
      if (!(key in loop)) issue(key, `is required for a ${type} loop`);
    if (type === 'for_each' && typeof loop.input_path === 'string' && !loopSourceRef(loop.input_path)) {
      issue(
        'input_path',
        'must be one placeholder naming an array, such as <<trigger_output.items>> or <<step_output.{uuid}.field>> of an earlier step',
      );
    }
    const predicateProblem =
      type === 'repeat_until' && typeof loop.predicate_path === 'string' ? jsonPathProblem(loop.predicate_path) : null;
    if (predicateProblem) {
      issues.push({
        code: ErrorCode.InvalidJsonPath,
        field: fieldPath(loopField, 'predicate_path'),
        message: `${fieldPath(loopField, 'predicate_path')} ${predicateProblem}: ${loop.predicate_path}`,
      });
    }
  }
  if (step.type === 'sub_workflow' && isJsonObject(loop) && loop.type !== 'for_each')
    issue('type', 'must be for_each on a sub_workflow step');
  const forEach = isJsonObject(loop) && loop.type === 'for_each';
  if (!forEach && typeof step.system_prompt === 'string') {
    const itemRef = findPlaceholders(step.system_prompt).find((ref) => ref.kind === 'item' || ref.kind === 'item_index');
    const field = fieldPath(prefix, 'system_prompt');
    if (itemRef)
      issues.push({
        code: ErrorCode.InvalidPlaceholder,
        field,
        message: `${field} uses ${itemRef.raw}, which only a step with a for_each loop has`,
      });
  }
  return issues;
}

/** The loop with its bound filled in, so a run's snapshot shows the limit it ran under. */
export function withLoopDefaults(loop: StepLoop): StepLoop {
  return loop.type === 'for_each'
    ? { ...loop, max_items: loop.max_items ?? LOOP_DEFAULTS.max_items }
    : { ...loop, max_iters: loop.max_iters ?? LOOP_DEFAULTS.max_iters };
}
