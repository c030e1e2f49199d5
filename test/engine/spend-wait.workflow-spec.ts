// A run whose model call is refused at its user's spend limit (a non-retryable SPEND_LIMIT_REACHED naming the
// period's reset) waits in the workflow and calls again at the reset, or at once on the re-check signal; a
// retryable refusal (an older worker's, left to Temporal's retry) and other failures are not waited on.
import type { WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { RECHECK_SPEND_SIGNAL, SPEND_LIMIT_REACHED_FAILURE } from '@app/contracts';
import { chainRun, llmStep, output } from './support/definitions';
import { useEngine } from './support/engine';
import { FakeActivities, llmAnswers, runEnd } from './support/fake-activities';

const refusal = (resetsAt: Date, nonRetryable = true) =>
  ApplicationFailure.create({
    message: 'SPEND_LIMIT_REACHED: no room',
    type: SPEND_LIMIT_REACHED_FAILURE,
    nonRetryable,
    details: [{ resets_at: resetsAt.toISOString() }],
  });

/** Resolves once the run waits on a timer (the spend wait's, until the reset). */
async function waitingOnTimer(handle: WorkflowHandle): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const { events } = await handle.fetchHistory();
    if (events?.some((event) => event.timerStartedEventAttributes)) return;
    if (Date.now() > deadline) throw new Error('the run never waited on a timer');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('Run workflow: spend pauses', () => {
  const engine = useEngine();

  it('calls a refused step again on the re-check signal, long before the reset', async () => {
    const a = llmStep('a');
    const tomorrow = new Date(Date.now() + 86_400_000);
    let signalled = false;
    const fake = new FakeActivities({
      runLlmStep: llmAnswers({
        a: () => {
          if (!signalled) throw refusal(tomorrow);
          return output();
        },
      }),
      ...runEnd(),
    });

    const sut = await engine.start(chainRun([a]), fake);
    await waitingOnTimer(sut.handle);
    signalled = true;
    await sut.handle.signal(RECHECK_SPEND_SIGNAL);

    await expect(sut.result()).resolves.toEqual({ status: 'completed', error_message: null });
    expect(fake.inputsOf('runLlmStep').map((input) => input.step.name)).toEqual(['a', 'a']);
  });

  it('calls it again at the reset without a signal, and waits again when still refused', async () => {
    const a = llmStep('a');
    const fake = new FakeActivities({
      runLlmStep: llmAnswers({
        a: (_input, nth) => {
          if (nth < 3) throw refusal(new Date(Date.now() + 500));
          return output();
        },
      }),
      ...runEnd(),
    });

    const sut = await engine.start(chainRun([a]), fake);

    await expect(sut.result()).resolves.toEqual({ status: 'completed', error_message: null });
    expect(fake.inputsOf('runLlmStep')).toHaveLength(3);
  });

  it("fails the step on a retryable refusal once its attempts are spent (an older worker's), as before", async () => {
    const a = llmStep('a', { retry_policy: { max_attempts: 1 } });
    const fake = new FakeActivities({
      runLlmStep: () => {
        throw refusal(new Date(Date.now() + 86_400_000), false);
      },
      ...runEnd(),
    });

    const sut = await engine.start(chainRun([a]), fake);

    await expect(sut.failure()).resolves.toMatchObject({ message: expect.stringContaining('SPEND_LIMIT_REACHED') });
    expect(fake.inputsOf('runLlmStep')).toHaveLength(1);
  });
});
