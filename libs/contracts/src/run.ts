// What the API, the worker and the run workflow agree on about runs.
import searchAttributes from './search-attributes.json';

/**
 * partial_success: a step failed for good after earlier steps completed; their outputs stay readable.
 * awaiting_input: in flight, a human_input step waits for a person's answer.
 */
export const RUN_STATUSES = ['running', 'awaiting_input', 'completed', 'stopped', 'partial_success', 'failed', 'cancelled'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
/** The statuses a run ends in. */
export type FinalStatus = Exclude<RunStatus, 'running' | 'awaiting_input'>;

export const STEP_STATUSES = ['pending', 'running', 'awaiting_input', 'completed', 'failed', 'skipped'] as const;
export type StepStatus = (typeof STEP_STATUSES)[number];

/** A graph's guard rails (ARCHITECTURE's glossary). */
export type GuardRail = 'max_steps' | 'repeated_input' | 'timeout_seconds';

/**
 * A guard rail that tripped, as data the run's end (or the human hand-off's wait) records for the
 * `guard_rail_hit` event: which rail, and the step whose execution it refused (timeout_seconds: none).
 */
export interface GuardRailHit {
  rail: GuardRail;
  step_uuid: string | null;
  step_name: string | null;
}

/** A run in these statuses has a live execution: it can be cancelled, and it has not ended. */
export const IN_FLIGHT_RUN_STATUSES: readonly RunStatus[] = ['running', 'awaiting_input'];
export const isInFlight = (status: RunStatus): boolean => IN_FLIGHT_RUN_STATUSES.includes(status);

/** A run ended in these statuses failed: counted in the workflow's failed_runs, its owner told if notify_on_failure. */
export const FAILED_RUN_STATUSES = ['failed', 'partial_success'] as const satisfies readonly FinalStatus[];

/** How an ended run counts: failed, successful (completed, or stopped by its conditions), or cancelled, which counts as neither. */
export type RunOutcome = 'failed' | 'successful' | 'cancelled';

export function outcomeOf(status: FinalStatus): RunOutcome {
  if ((FAILED_RUN_STATUSES as readonly FinalStatus[]).includes(status)) return 'failed';
  return status === 'cancelled' ? 'cancelled' : 'successful';
}

/** Custom search attributes every run carries; scripts/lib/temporal.sh registers the same file. */
export const SEARCH_ATTRIBUTE_NAMES = Object.keys(searchAttributes) as (keyof typeof searchAttributes)[];
export type SearchAttributeName = keyof typeof searchAttributes;

/** A chat message as sent to and received from the model, and as audited on a step instance. */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string | null;
  tool_calls?: ToolCallRequest[];
  tool_call_id?: string;
  name?: string;
}

export interface ToolCallRequest {
  id: string;
  name: string;
  /** The JSON arguments as the model wrote them (may be malformed; the tool call validates). */
  arguments: string;
}

export interface TokenUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  /** Of the prompt tokens, those the provider served from its prompt cache (priced lower); absent: none. */
  cached_tokens?: number;
}
