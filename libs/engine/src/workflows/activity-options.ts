import type { ActivityOptions, LocalActivityOptions } from '@temporalio/workflow';
import type { RetryPolicy, StepDefinition } from '@app/contracts';

export const DEFAULT_RETRY: Required<RetryPolicy> = {
  max_attempts: 5,
  initial_interval_seconds: 1,
  backoff_coefficient: 2,
  maximum_interval_seconds: 30,
};

/** Options of the activities that do a step's work: the step's retry policy, and `label`, their name in the Web UI. */
export function stepActivityOptions(step: StepDefinition, heartbeatSeconds: number, label: string): ActivityOptions {
  return { ...localStepOptions(step, label), heartbeatTimeout: `${heartbeatSeconds} seconds` };
}

/**
 * Milliseconds, at least one: the SDK reads no exponent in a duration string ("1e-7 seconds") and refuses 0, and
 * definitions saved before intervals were checked at save may hold either.
 */
const wholeMilliseconds = (seconds: number): number => Math.max(1, Math.round(seconds * 1000));

/** The same work as a local activity: no heartbeat (the worker running it is the workflow's own). */
export function localStepOptions(step: StepDefinition, label: string): LocalActivityOptions {
  const retry = { ...DEFAULT_RETRY, ...(step.retry_policy ?? {}) };
  return {
    summary: label,
    startToCloseTimeout: '10 minutes',
    // Wait for a cancelled activity to stop, so that a cancelled run never has a call still in flight.
    cancellationType: 'WAIT_CANCELLATION_COMPLETED',
    retry: {
      maximumAttempts: retry.max_attempts,
      initialInterval: wholeMilliseconds(retry.initial_interval_seconds),
      backoffCoefficient: retry.backoff_coefficient,
      maximumInterval: wholeMilliseconds(retry.maximum_interval_seconds),
    },
  };
}

/** Audit writes: short, retried until the database answers. */
export const BOOKKEEPING_OPTIONS: ActivityOptions & LocalActivityOptions = {
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '10 seconds', backoffCoefficient: 2 },
};

/** Run-end notifications: a few attempts with backoff, then the run moves on. */
export const NOTIFICATION_OPTIONS: ActivityOptions = {
  summary: 'notify',
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 5, initialInterval: '1 second', maximumInterval: '30 seconds', backoffCoefficient: 2 },
};
