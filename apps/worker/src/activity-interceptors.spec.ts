import type { Context } from '@temporalio/activity';
import type { Metrics } from '@app/observability';
import { activityInterceptors, nameLogStep } from './activity-interceptors';

describe('activityInterceptors', () => {
  const metrics = { activityDuration: { observe: () => undefined } } as unknown as Metrics;
  const contextOf = () =>
    ({ info: { activityType: 'runLlmStep' }, cancellationSignal: new AbortController().signal }) as unknown as Context;
  const input = { args: [{ step: { name: 'first' }, run_uuid: 'run-1' }], headers: {} };
  const attributesOf = (interceptors: ReturnType<ReturnType<typeof activityInterceptors>>) =>
    interceptors.outbound!.getLogAttributes!({ level: 'info' }, (attributes) => attributes);

  it('names the step and the run an activity works for in its log lines', async () => {
    const interceptors = activityInterceptors(metrics)(contextOf());

    const seen = await interceptors.inbound!.execute!(input as never, async () => attributesOf(interceptors));

    expect(seen).toEqual({ level: 'info', step: 'first', run_uuid: 'run-1' });
  });

  it('names the step a chain runs on in the same activity from then on, and only in that activity', async () => {
    const [context, other] = [contextOf(), contextOf()];
    const interceptors = activityInterceptors(metrics)(context);
    const beside = activityInterceptors(metrics)(other);
    await beside.inbound!.execute!(input as never, async () => undefined);

    const seen = await interceptors.inbound!.execute!(input as never, async () => {
      nameLogStep(context, 'second');
      return attributesOf(interceptors);
    });

    expect(seen).toEqual({ level: 'info', step: 'second', run_uuid: 'run-1' });
    expect(attributesOf(beside)).toEqual({ level: 'info', step: 'first', run_uuid: 'run-1' });
  });
});
