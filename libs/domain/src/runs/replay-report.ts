// A replay's report: each step of the replayed run beside the same step of the replay (matched by the step's
// uuid in the definition, else by its name: an inline definition may carry new uuids), whether the replay's
// step was answered from the record or computed anew, its tokens and duration, and how it compares.
import { canonicalJson } from '../tools/tool-manifest';

/** Outputs up to this size are shown whole in the report; larger ones by their preview and id. */
export const REPORT_OUTPUT_MAX_BYTES = 64 * 1024;

/** What the report reads of a step's row (the run's read gives it: a step with its audit and executions). */
export interface ComparedStep {
  step_definition_uuid: string;
  step_name: string;
  status: string;
  error_message: string | null;
  duration_ms: number | null;
  output: { uuid: string; raw_data: unknown; summary: string; size_bytes: number } | null;
  model_calls: { status: string; total_tokens: number; cost?: number | null; replayed_from?: string | null }[];
  tool_calls: { status: string; replayed_from?: string | null }[];
  executions: ComparedStep[];
}

/**
 * identical: same status and equal outputs; changed: ran in both, differently; new: ran only in the replay;
 * failed: failed in the replay; removed: in the replayed run, not in the replay's definition.
 */
export type StepComparison = 'identical' | 'changed' | 'new' | 'failed' | 'removed';

export interface StepSide {
  status: string;
  error_message: string | null;
  /** The output whole when at most REPORT_OUTPUT_MAX_BYTES, else null (`output_id` reads it). */
  output: unknown;
  output_id: string | null;
  output_preview: string | null;
  total_tokens: number;
  /** Dollars at the configured prices; null when none of its calls had a price. */
  cost: number | null;
  duration_ms: number | null;
}

export interface ReplaySide extends StepSide {
  /** record: every call it made was answered from the record; computed: none was; mixed; none: it made no call. */
  answered: 'record' | 'computed' | 'mixed' | 'none';
  calls_from_record: number;
  calls_made: number;
}

export interface ReplayStepReport {
  step_uuid: string;
  step_name: string;
  comparison: StepComparison;
  source: StepSide | null;
  replay: ReplaySide | null;
}

export interface ReplayReport {
  summary: Record<StepComparison, number>;
  steps: ReplayStepReport[];
}

const RAN = new Set(['completed', 'failed']);

export function replayReport(source: readonly ComparedStep[], replay: readonly ComparedStep[]): ReplayReport {
  const unmatched = [...source];
  const take = (step: ComparedStep): ComparedStep | null => {
    const at = unmatched.findIndex((candidate) => candidate.step_definition_uuid === step.step_definition_uuid);
    const found = at >= 0 ? at : unmatched.findIndex((candidate) => candidate.step_name === step.step_name);
    return found >= 0 ? unmatched.splice(found, 1)[0] : null;
  };
  const steps: ReplayStepReport[] = replay.map((step) => {
    const before = take(step);
    return {
      step_uuid: step.step_definition_uuid,
      step_name: step.step_name,
      comparison: comparisonOf(before, step),
      source: before && sideOf(before),
      replay: replaySideOf(step),
    };
  });
  for (const before of unmatched)
    steps.push({
      step_uuid: before.step_definition_uuid,
      step_name: before.step_name,
      comparison: 'removed',
      source: sideOf(before),
      replay: null,
    });
  const summary: Record<StepComparison, number> = { identical: 0, changed: 0, new: 0, failed: 0, removed: 0 };
  for (const step of steps) summary[step.comparison] += 1;
  return { summary, steps };
}

function comparisonOf(before: ComparedStep | null, after: ComparedStep): StepComparison {
  if (after.status === 'failed') return 'failed';
  if (!before || (!RAN.has(before.status) && RAN.has(after.status))) return 'new';
  if (before.status !== after.status) return 'changed';
  return canonicalJson(before.output?.raw_data ?? null) === canonicalJson(after.output?.raw_data ?? null) ? 'identical' : 'changed';
}

/** The step's row and its executions', depth first. */
function rowsOf(step: ComparedStep): ComparedStep[] {
  return [step, ...step.executions.flatMap(rowsOf)];
}

function sideOf(step: ComparedStep): StepSide {
  const output = step.output;
  const calls = rowsOf(step)
    .flatMap((row) => row.model_calls)
    .filter((call) => call.status === 'completed');
  const priced = calls.filter((call) => typeof call.cost === 'number');
  return {
    status: step.status,
    error_message: step.error_message,
    output: output && output.size_bytes <= REPORT_OUTPUT_MAX_BYTES ? output.raw_data : null,
    output_id: output?.uuid ?? null,
    output_preview: output?.summary ?? null,
    total_tokens: calls.reduce((sum, call) => sum + call.total_tokens, 0),
    cost: priced.length ? priced.reduce((sum, call) => sum + (call.cost ?? 0), 0) : null,
    duration_ms: step.duration_ms,
  };
}

function replaySideOf(step: ComparedStep): ReplaySide {
  const calls = rowsOf(step).flatMap((row) => [...row.model_calls, ...row.tool_calls].filter((call) => call.status === 'completed'));
  const fromRecord = calls.filter((call) => call.replayed_from).length;
  const answered = !calls.length ? 'none' : fromRecord === calls.length ? 'record' : fromRecord === 0 ? 'computed' : 'mixed';
  return { ...sideOf(step), answered, calls_from_record: fromRecord, calls_made: calls.length };
}
