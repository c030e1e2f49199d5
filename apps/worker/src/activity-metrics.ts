import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import type { Metrics } from '@app/observability';

/** Every activity attempt's duration, by activity type and outcome (completed, failed, cancelled). */
export function activityMetrics(metrics: Metrics): ActivityInterceptorsFactory {
  return (context) => ({
    inbound: {
      async execute(input, next) {
        const started = process.hrtime.bigint();
        const observe = (outcome: string) =>
          metrics.activityDuration.observe({ activity: context.info.activityType, outcome }, Number(process.hrtime.bigint() - started) / 1e9);
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
  });
}
