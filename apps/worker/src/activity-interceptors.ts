import type { Context } from '@temporalio/activity';
import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import type { Metrics } from '@app/observability';

/** Each running activity's way to rename the step its log lines name, by its context. */
const stepNamers = new WeakMap<Context, (name: string) => void>();

/** From now on the activity of `context` works for the step `name` (a chain's step run on in another's activity). */
export function nameLogStep(context: Context, name: string): void {
  stepNamers.get(context)?.(name);
}

/** What an activity's input says about the step it works for, when it works for one. */
function stepOf(args: unknown[]): Record<string, unknown> {
  const input = args[0] as { step?: { name?: unknown }; run_uuid?: unknown } | undefined;
  return {
    ...(typeof input?.step?.name === 'string' ? { step: input.step.name } : {}),
    ...(typeof input?.run_uuid === 'string' ? { run_uuid: input.run_uuid } : {}),
  };
}

/**
 * Every activity attempt's duration, by activity type and outcome (completed, failed, cancelled), and its
 * log lines (the SDK's and ours) naming the step and the run it works for.
 */
export function activityInterceptors(metrics: Metrics): ActivityInterceptorsFactory {
  return (context) => {
    let step: Record<string, unknown> = {};
    stepNamers.set(context, (name) => (step = { ...step, step: name }));
    return {
      inbound: {
        async execute(input, next) {
          step = stepOf(input.args);
          const started = process.hrtime.bigint();
          const observe = (outcome: string) =>
            metrics.activityDuration.observe(
              { activity: context.info.activityType, outcome },
              Number(process.hrtime.bigint() - started) / 1e9,
            );
          try {
            const result = await next(input);
            observe('completed');
            return result;
          } catch (error) {
            observe(context.cancellationSignal.aborted ? 'cancelled' : 'failed');
            throw error;
          }
        },
      },
      outbound: {
        getLogAttributes: (attributes, next) => next({ ...attributes, ...step }),
      },
    };
  };
}
