import type { OutputRecord } from './run.records';

export type NewOutput = Omit<OutputRecord, 'created_at'>;

/** Step outputs (`step_outputs`): a run's trigger data, each step's, each iteration's; read by placeholders and the API. */
export abstract class OutputRepository {
  /** An output of the user's, by id (GET /outputs/{id}, or a reference the model was handed). */
  abstract findOutput(userId: string, outputId: string): Promise<OutputRecord | null>;
  abstract triggerOutput(runUuid: string): Promise<OutputRecord | null>;
  /** The output of a step in a run (a looping step's own output, not an iteration's). */
  abstract outputOfStep(runUuid: string, stepUuid: string): Promise<OutputRecord | null>;
  /** A step's latest `limit` outputs, oldest first: its completed iterations' when it loops, else its one output. */
  abstract outputHistory(runUuid: string, stepUuid: string, limit: number): Promise<OutputRecord[]>;
  /** The outputs of a looping step's completed iterations in order: all of them, or the last `limit`. */
  abstract executionOutputs(parentInstanceUuid: string, limit?: number): Promise<OutputRecord[]>;
  /** The same outputs by their row's index (a for_each's item index), for a loop whose failed items leave gaps. */
  abstract executionOutputsByIndex(parentInstanceUuid: string): Promise<Map<number, OutputRecord>>;
  /** What those outputs weigh together (their size_bytes), read without reading them. */
  abstract executionOutputBytes(parentInstanceUuid: string): Promise<number>;
  /** Stores an output on its own, the step going on (a large tool answer the model reads by reference). */
  abstract storeOutput(output: NewOutput): Promise<void>;
}
