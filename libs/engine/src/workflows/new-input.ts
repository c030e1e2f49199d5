// Pure bookkeeping for the graph walk's repeated-input guard rail, unit-tested on its own.
/**
 * The repeated-input guard rail (no step runs again without new information): a step reached
 * again while no step's latest output has changed since it last ran would only go round the same cycle.
 * Outputs are compared by digest; a version counts every change.
 */
export function newInputTracker() {
  const latest = new Map<string, string | undefined>();
  let version = 0;
  /** The version each step last ran on, its own output included. */
  let seenAt = new Map<string, number>();
  return {
    /** Whether `stepUuid` runs on something new; marks what it has now seen. */
    hasNewInput(stepUuid: string): boolean {
      const isNew = seenAt.get(stepUuid) !== version;
      seenAt.set(stepUuid, version);
      return isNew;
    },
    outputOf(stepUuid: string, digest: string | undefined): void {
      if (digest === undefined || !latest.has(stepUuid) || latest.get(stepUuid) !== digest) version += 1;
      latest.set(stepUuid, digest);
      seenAt.set(stepUuid, version);
    },
    /** A new walk (a conversation's message) or a person's decision is new input for every step. */
    forget(): void {
      seenAt = new Map();
    },
  };
}

export type NewInputTracker = ReturnType<typeof newInputTracker>;
