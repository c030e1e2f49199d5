// A cancelled run still closes its rows and records its end, whatever the cancellation interrupted: a
// person's answer awaited, a model call in flight (which ends before the run does), a wave of branches.
import { CancelledFailure } from '@temporalio/common';
import { chainRun, edge, graphRun, humanStep, llmStep, output, rowOf } from './support/definitions';
import { useEngine } from './support/engine';
import { FakeActivities, llmAnswers, recorded, untilCancelled } from './support/fake-activities';

describe('Run workflow: cancellation', () => {
  const engine = useEngine();
  const CANCELLED = 'Cancelled while running';

  /** The bookkeeping of a run's end, noted in `order` with the model calls' cancellations. */
  const endings = (order: string[]) => ({
    failStep: async ({ instance_uuid }: { instance_uuid: string }) => void order.push(`failStep ${instance_uuid}`),
    closeGraphStep: async ({ instance_uuid }: { instance_uuid: string }) => void order.push(`closeGraphStep ${instance_uuid}`),
    finishRun: async () => void order.push('finishRun'),
  });
  /** A model call that runs until cancelled, then takes `stopMs` to stop. */
  const cancellable =
    (order: string[], stopMs = 0) =>
    async () => {
      try {
        return await untilCancelled();
      } catch (error) {
        await new Promise((resolve) => setTimeout(resolve, stopMs));
        order.push('model call cancelled');
        throw error;
      }
    };

  it('a graph run cancelled while a person is asked closes the waiting execution, then every step’s row, then ends cancelled', async () => {
    const [first, person] = [llmStep('first'), humanStep('person')];
    const run = graphRun([first, person], { edges: [edge(first, person)] });
    const order: string[] = [];
    const fake = new FakeActivities({ ...endings(order), runLlmStep: llmAnswers({ first: () => output() }), awaitHumanInput: recorded });

    const sut = await engine.start(run, fake);
    await fake.called('awaitHumanInput');
    await sut.handle.cancel();

    await expect(sut.failure()).resolves.toBeInstanceOf(CancelledFailure);
    const [waiting] = fake.inputsOf('awaitHumanInput');
    expect(order).toEqual([
      `failStep ${waiting.instance_uuid}`,
      `closeGraphStep ${rowOf(run, first)}`,
      `closeGraphStep ${rowOf(run, person)}`,
      'finishRun',
    ]);
    expect(fake.inputsOf('failStep')).toEqual([{ instance_uuid: waiting.instance_uuid, error_message: CANCELLED }]);
    expect(fake.inputsOf('finishRun')).toEqual([{ run_uuid: run.run_uuid, status: 'cancelled', error_message: 'Cancelled by request' }]);
  });

  it('a chain run cancelled during a model call waits for the call to end, fails its step and ends cancelled; no later step runs', async () => {
    const [slow, never] = [llmStep('slow'), llmStep('never')];
    const run = chainRun([slow, never]);
    const order: string[] = [];
    const { closeGraphStep: _graphsOnly, ...chainEndings } = endings(order);
    const fake = new FakeActivities({ ...chainEndings, runLlmStep: llmAnswers({ slow: cancellable(order, 1_000) }) });

    // The call is a local activity: the cancellation reaches the workflow when its task, kept open while the
    // call runs, is renewed (at 80 % of its timeout: 8 s with the API's default of 10, 2.4 s here).
    const sut = await engine.start(run, fake, { workflowTaskTimeout: '3 seconds' });
    await fake.called('runLlmStep');
    await sut.handle.cancel();

    await expect(sut.failure()).resolves.toBeInstanceOf(CancelledFailure);
    expect(order).toEqual(['model call cancelled', `failStep ${rowOf(run, slow)}`, 'finishRun']);
    expect(fake.inputsOf('failStep')).toEqual([{ instance_uuid: rowOf(run, slow), error_message: CANCELLED }]);
    expect(fake.inputsOf('finishRun')).toEqual([{ run_uuid: run.run_uuid, status: 'cancelled', error_message: 'Cancelled by request' }]);
  });

  it('a graph run cancelled during a wave waits for every branch to close its execution, then closes its rows and ends', async () => {
    const [first, left, right] = [llmStep('first'), llmStep('left'), llmStep('right')];
    // Short: a queued activity hears of the cancellation at its next heartbeat sent (80 % of this).
    const run = graphRun([first, left, right], { edges: [edge(first, left), edge(first, right)] }, { heartbeat_timeout_seconds: 2 });
    const order: string[] = [];
    // right's call is slow to stop: the run still waits for it (and its row) before it ends.
    const fake = new FakeActivities({
      ...endings(order),
      runLlmStep: llmAnswers({ first: () => output(), left: cancellable(order), right: cancellable(order, 1_000) }),
    });

    const sut = await engine.start(run, fake);
    await fake.called('runLlmStep', 3);
    await sut.handle.cancel();

    await expect(sut.failure()).resolves.toBeInstanceOf(CancelledFailure);
    const branches = fake
      .inputsOf('runLlmStep')
      .slice(1)
      .map((input) => input.instance_uuid);
    expect(order.slice(0, 4).sort()).toEqual(
      [...branches.map((row) => `failStep ${row}`), 'model call cancelled', 'model call cancelled'].sort(),
    );
    expect(order.slice(4)).toEqual([first, left, right].map((step) => `closeGraphStep ${rowOf(run, step)}`).concat('finishRun'));
    expect(fake.inputsOf('failStep').map((input) => input.error_message)).toEqual([CANCELLED, CANCELLED]);
  });
});
