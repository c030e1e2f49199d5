// A run paused on its user's spend limit: the worker refuses the model call with a non-retryable
// SPEND_LIMIT_REACHED that names the period's reset, and the run waits here (its row shows awaiting_input
// and the spend_pause) until that reset or a re-check signal (the user's limits changed, or they asked), then
// calls the activity again. Workers before this one made the refusal retryable (Temporal waited out the
// reset), so no recorded history holds a non-retryable one: histories replay unchanged without a patch.
import { ActivityFailure, ApplicationFailure, condition, defineSignal, setHandler } from '@temporalio/workflow';
import { RECHECK_SPEND_SIGNAL, SPEND_LIMIT_REACHED_FAILURE } from '@app/contracts';

export const recheckSpendSignal = defineSignal(RECHECK_SPEND_SIGNAL);

export interface SpendWait {
  /** Returns at `resetsAtMs` (epoch ms) or at the next re-check signal, whichever comes first. */
  untilRecheck(resetsAtMs: number): Promise<void>;
}

/** Registers the re-check handler (at the workflow's start, before any await). */
export function spendWait(): SpendWait {
  let rechecks = 0;
  setHandler(recheckSpendSignal, () => void rechecks++);
  return {
    async untilRecheck(resetsAtMs) {
      const seen = rechecks;
      await condition(() => rechecks > seen, Math.max(1, resetsAtMs - Date.now()));
    },
  };
}

/** The reset time (epoch ms) of a spend refusal the run is to wait out; null for any other error. */
export function spendRefusalResetOf(error: unknown): number | null {
  // A queued activity's failure is its ActivityFailure's cause; a local activity's comes as it was thrown.
  const cause = error instanceof ActivityFailure ? error.cause : error;
  if (!(cause instanceof ApplicationFailure) || cause.type !== SPEND_LIMIT_REACHED_FAILURE || !cause.nonRetryable) return null;
  const details = cause.details?.[0] as { resets_at?: unknown } | undefined;
  const at = typeof details?.resets_at === 'string' ? Date.parse(details.resets_at) : NaN;
  return Number.isNaN(at) ? null : at;
}

/** `activities` whose calls, refused at the spend limit, wait (see SpendWait) and are made again. */
export function waitingOnSpend<T extends object>(activities: T, wait: SpendWait): T {
  return new Proxy(activities, {
    get(target, name, receiver) {
      const activity = Reflect.get(target, name, receiver) as unknown;
      if (typeof activity !== 'function') return activity;
      return async (...args: unknown[]) => {
        for (;;) {
          try {
            return (await (activity as (...a: unknown[]) => Promise<unknown>)(...args)) as unknown;
          } catch (error) {
            const resetsAt = spendRefusalResetOf(error);
            if (resetsAt === null) throw error;
            await wait.untilRecheck(resetsAt);
          }
        }
      };
    },
  });
}
