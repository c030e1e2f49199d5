/** One of a run's live events (`run_events`), as the database triggers on the audit tables wrote it. */
export interface RunEventRecord {
  /** The event's place among all events (what a workflow's stream resumes from). */
  id: number;
  run_uuid: string;
  /** Its place among its run's events, from 1 (what a run's stream resumes from). */
  seq: number;
  type: string;
  payload: Record<string, unknown>;
  created_at: Date;
}

/**
 * A model call's streamed answer, in pieces: text, a tool call's head (`text` its `{"id", "name"}` as JSON),
 * or a piece of its arguments; `tool_index` is the tool call's place among the answer's.
 */
export interface RunDelta {
  step_instance_uuid: string;
  turn: number;
  attempt: number;
  kind: 'text' | 'tool_call' | 'tool_args';
  tool_index: number | null;
  text: string;
}

export interface RunDeltaRecord extends RunDelta {
  id: number;
}

/** The model call a delta belongs to: step instance, turn, attempt. */
export type ModelCallKey = Pick<RunDelta, 'step_instance_uuid' | 'turn' | 'attempt'>;

/**
 * A run's live events and a streamed answer's deltas. Events are written by the audit's own writes
 * (triggers, see the run-events migration): this only reads them. Deltas are written in batches by the worker
 * while a model answers, and swept once old by runs' ends (RunRepository.end).
 */
export abstract class RunEventRepository {
  /** The run's events after `seq`, in order, at most `limit`. */
  abstract eventsAfter(runUuid: string, seq: number, limit: number): Promise<RunEventRecord[]>;
  /** The events of every run of a workflow after the event `id`, in the order they were numbered, at most `limit`. */
  abstract workflowEventsAfter(workflowUuid: string, id: number, limit: number): Promise<RunEventRecord[]>;
  /** The run's last event's seq (0 when it has none). */
  abstract lastSeq(runUuid: string): Promise<number>;
  /** The newest event id of all (0 when none): where a workflow's stream starts when asked for no past. */
  abstract lastId(): Promise<number>;
  /** Appends streamed pieces, in order, in one statement. */
  abstract appendDeltas(runUuid: string, deltas: RunDelta[]): Promise<void>;
  /** The run's deltas after `id`, in order, at most `limit`. */
  abstract deltasAfter(runUuid: string, id: number, limit: number): Promise<RunDeltaRecord[]>;
  /** The run's model calls whose attempt is in flight (`running`), for a late watcher's text so far. */
  abstract callsInFlight(runUuid: string): Promise<ModelCallKey[]>;
  /** Every delta of one attempt, in order, up to `id` (its text so far when a watcher joins), at most `limit`. */
  abstract deltasOf(runUuid: string, call: ModelCallKey, upToId: number, limit: number): Promise<RunDeltaRecord[]>;
  /** The newest delta id of the run (0 when none). */
  abstract lastDeltaId(runUuid: string): Promise<number>;
  /** An output's data when it weighs at most `maxBytes` (a step_completed event carries it), else null. */
  abstract smallOutput(outputId: string, maxBytes: number): Promise<{ data: unknown } | null>;
}
