// Human input: a person answers a waiting human_input step through a Temporal Update. The
// workflow defines the update from this name (defineUpdate lives in libs/engine: contracts stay I/O-free).
import type { JsonValue } from './json';

export const HUMAN_INPUT_UPDATE = 'humanInput';

/** The update's argument: which step is answered, and the answer (already checked against its input_schema by the API). */
export interface HumanInputArgs {
  step_uuid: string;
  input: JsonValue;
}

export interface HumanInputAccepted {
  run_uuid: string;
  step_uuid: string;
  status: 'accepted';
}

/** The failure type the update's validator rejects with when the step is not waiting for an answer. */
export const STEP_NOT_AWAITING_INPUT = 'StepNotAwaitingInput';
