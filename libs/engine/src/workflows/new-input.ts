// Pure bookkeeping for the graph walk's repeated-input guard rail, unit-tested on its own.
/**
 * The repeated-input guard rail (no step runs again without new information): a step reached
 * again while no step's latest output has changed since it last ran would only go round the same cycle.
 * Outputs are compared by digest; a version counts every change.
 *
 * `seesOnlyItsStart` decides, where it matters, whether a step that ran beside others has seen their outputs
 * (the workflow passes a patch check, so runs recorded before the fix replay as they ran).
 */
export function newInputTracker(seesOnlyItsStart: () => boolean = () => true) {
  const latest = new Map<string, string | undefined>();
  let version = 0;
  /** The version each step last ran on, its own output included. */
  let seenAt = new Map<string, number>();
  /** The version each running step started on. */
  const startedAt = new Map<string, number>();
  return {
    /** Whether `stepUuid` runs on something new; marks what it has now seen. */
    hasNewInput(stepUuid: string): boolean {
      const isNew = seenAt.get(stepUuid) !== version;
      seenAt.set(stepUuid, version);
      return isNew;
    },
    /** An execution of `stepUuid` starts: it reads the outputs as they are now. */
    starts(stepUuid: string): void {
      startedAt.set(stepUuid, version);
    },
    outputOf(stepUuid: string, digest: string | undefined): void {
      const from = startedAt.get(stepUuid);
      startedAt.delete(stepUuid);
      // Another step's output changed while this one ran: it never read that, so it stays new to it.
      const missedSome = from !== undefined && from !== version;
      if (digest === undefined || !latest.has(stepUuid) || latest.get(stepUuid) !== digest) version += 1;
      latest.set(stepUuid, digest);
      seenAt.set(stepUuid, missedSome && seesOnlyItsStart() ? from : version);
    },
    /** A new walk (a conversation's message) or a person's decision is new input for every step. */
    forget(): void {
      seenAt = new Map();
    },
  };
}

export type NewInputTracker = ReturnType<typeof newInputTracker>;
