// Activity tasks that a worker from before `StepContext.iteration` was named `execution` (2026-11-24) scheduled
// still carry the old name when a newer worker runs them after a deploy: read it as the new one, so a loop's
// iteration or a graph step's execution in flight keeps its own row. Remove once no run started before is open.

type Activity = (input: unknown, ...rest: unknown[]) => unknown;

/** `input` with a legacy `iteration` field named `execution`; anything else as it is. */
export function withExecutionNamed(input: unknown): unknown {
  if (!input || typeof input !== 'object' || !('iteration' in input) || 'execution' in input) return input;
  const { iteration, ...rest } = input as { iteration: unknown };
  return { ...rest, execution: iteration };
}

/** The same activities, each reading a legacy step context as today's. */
export function acceptingLegacyContexts<T extends object>(activities: T): T {
  const wrapped = Object.entries(activities).map(([name, activity]: [string, Activity]) => [
    name,
    (input: unknown, ...rest: unknown[]) => activity(withExecutionNamed(input), ...rest),
  ]);
  return Object.fromEntries(wrapped) as T;
}
