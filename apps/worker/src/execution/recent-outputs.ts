import { Injectable } from '@nestjs/common';
import type { NewOutput, OutputRecord } from '@app/persistence';

/** Outputs larger than this are read from MySQL each time: the memory kept stays small whatever steps answer. */
const KEPT_MAX_BYTES = 16 * 1024;
/** How many of each kind are kept at once (the least recently used go first): about one per chain run in flight. */
const KEPT_MAX = 256;

/**
 * Outputs a chain's next step would otherwise read back from MySQL (issue #32: one round trip a step).
 * - A step's output this worker has just committed, kept by id until the step that follows takes it: a
 *   chain's next step runs on the same worker (a local activity), and only the id its walk names is taken
 *   (StepContext.previous_output_id). An output row never changes once written.
 * - A run's trigger output, which every step naming <<trigger_output>> reads: set with the run's row at its
 *   start and never changed after, so read once per run by this worker.
 */
@Injectable()
export class RecentOutputs {
  private readonly stored = new Map<string, OutputRecord>();
  private readonly triggers = new Map<string, OutputRecord>();

  keep(output: NewOutput): void {
    // created_at: the moment of its commit, give or take the round trip (the column's default is the server's clock).
    if (output.size_bytes <= KEPT_MAX_BYTES) remember(this.stored, output.uuid, { ...output, created_at: new Date() });
  }

  /** The output `outputId` of run `runUuid` if this worker kept it (it is then forgotten: a step reads it once), else null. */
  take(runUuid: string, outputId: string | undefined): OutputRecord | null {
    const output = outputId === undefined ? undefined : this.stored.get(outputId);
    if (!output || output.run_uuid !== runUuid) return null;
    this.stored.delete(outputId!);
    return output;
  }

  /** Run `runUuid`'s trigger output: as read before by this worker, else `read` (and kept when there is one). */
  async trigger(runUuid: string, read: () => Promise<OutputRecord | null>): Promise<OutputRecord | null> {
    const known = this.triggers.get(runUuid);
    if (known) {
      remember(this.triggers, runUuid, known);
      return known;
    }
    const output = await read();
    if (output && output.size_bytes <= KEPT_MAX_BYTES) remember(this.triggers, runUuid, output);
    return output;
  }
}

/** Sets `key` as the most recent entry of `map`, dropping the least recent past KEPT_MAX. */
function remember<T>(map: Map<string, T>, key: string, value: T): void {
  map.delete(key);
  if (map.size >= KEPT_MAX) map.delete(map.keys().next().value!);
  map.set(key, value);
}
