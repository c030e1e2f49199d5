// The evaluation workflow (#30) on the real Temporal over fake activities: its case runs (child run workflows)
// never number more at once than its concurrency, and cancelling it cancels the ones in flight before the
// evaluation is recorded cancelled.
import { randomUUID } from 'node:crypto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import {
  EVALUATION_WORKFLOW_TYPE,
  evaluationWorkflowId,
  type EvaluationActivities,
  type EvaluationCaseRef,
  type EvaluationWorkflowInput,
  type PreparedRun,
} from '@app/contracts';
import { Waiters } from '../support/waiters';
import { chainRun, llmStep, output } from './support/definitions';
import { engineBundlePath } from './support/engine-bundle';
import { quietRuntime } from './support/engine';
import { FakeActivities, llmAnswers, runEnd, untilCancelled } from './support/fake-activities';

type EndInput = Parameters<EvaluationActivities['endEvaluation']>[0];

describe('Evaluation workflow', () => {
  let env: TestWorkflowEnvironment;
  beforeAll(async () => {
    quietRuntime();
    env = await TestWorkflowEnvironment.createFromExistingServer({
      address: process.env.TEMPORAL_ADDRESS,
      namespace: process.env.TEMPORAL_NAMESPACE ?? 'default',
    });
  });
  afterAll(async () => await env?.teardown());

  /** The evaluation's own activities: each case is a one-step chain run; its end is noted in `ends`. */
  function evaluationActivities(ends: EndInput[], waiters: Waiters): EvaluationActivities {
    return {
      prepareEvaluationRun: async (ref: EvaluationCaseRef): Promise<{ run: PreparedRun }> => ({
        run: chainRun([llmStep(`case ${ref.case}`)], { heartbeat_timeout_seconds: 2 }),
      }),
      endEvaluation: async (input) => {
        ends.push(input);
        waiters.notify();
      },
    };
  }

  /** Runs an evaluation to its end on a worker of its own; `during` acts while it runs. */
  async function evaluate(
    input: Omit<EvaluationWorkflowInput, 'evaluation_uuid' | 'user_id'>,
    fake: FakeActivities,
    during: (cancel: () => Promise<void>) => Promise<void> = async () => undefined,
  ): Promise<EndInput[]> {
    const ends: EndInput[] = [];
    const waiters = new Waiters('evaluation');
    const taskQueue = `engine-evaluation-${randomUUID().slice(0, 8)}`;
    const worker = await Worker.create({
      connection: env.nativeConnection,
      namespace: process.env.TEMPORAL_NAMESPACE ?? 'default',
      taskQueue,
      workflowBundle: { codePath: engineBundlePath() },
      activities: { ...fake.activities, ...evaluationActivities(ends, waiters) },
    });
    const evaluationUuid = randomUUID();
    const handle = await env.client.workflow.start(EVALUATION_WORKFLOW_TYPE, {
      taskQueue,
      workflowId: evaluationWorkflowId(evaluationUuid),
      args: [{ evaluation_uuid: evaluationUuid, user_id: 'user-1', ...input }],
      workflowExecutionTimeout: '2 minutes',
    });
    await worker.runUntil(async () => {
      await during(() => handle.cancel().then(() => undefined));
      await handle.result().catch(() => undefined);
    });
    if (fake.unexpected.length) throw new Error(`Activity calls the spec did not expect: ${fake.unexpected.join('; ')}`);
    return ends;
  }

  it('never runs more case runs at once than its concurrency, and runs every case', async () => {
    const concurrency = 3;
    let inFlight = 0;
    let most = 0;
    const waiters = new Waiters('case runs');
    // Each case's model call holds until `concurrency` are in flight (or a bound passes), then a while longer:
    // the window in which a lane too many would show as one more in flight.
    const held = async () => {
      inFlight += 1;
      most = Math.max(most, inFlight);
      waiters.notify();
      await waiters
        .until(
          () => inFlight >= concurrency,
          10_000,
          () => 'the lanes never filled',
        )
        .catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, 300));
      inFlight -= 1;
      return output();
    };
    const answers = Object.fromEntries(Array.from({ length: 6 }, (_, i) => [`case ${i}`, held]));
    const fake = new FakeActivities({ ...runEnd(), runLlmStep: llmAnswers(answers) });

    const ends = await evaluate({ target_count: 1, case_count: 6, concurrency }, fake);

    expect(most).toBe(concurrency);
    expect(
      fake
        .inputsOf('runLlmStep')
        .map((input) => input.step.name)
        .sort(),
    ).toEqual(Object.keys(answers).sort());
    expect(fake.inputsOf('finishRun').map((input) => input.status)).toEqual(Array(6).fill('completed'));
    expect(ends).toEqual([expect.objectContaining({ status: 'completed', refused: [] })]);
  });

  it('cancelling it cancels the case runs in flight, starts no other, and records it cancelled', async () => {
    const fake = new FakeActivities({ ...runEnd(), runLlmStep: llmAnswers({ 'case 0': untilCancelled, 'case 1': untilCancelled }) });

    const ends = await evaluate({ target_count: 1, case_count: 4, concurrency: 2 }, fake, async (cancel) => {
      await fake.called('runLlmStep', 2);
      await cancel();
    });

    expect(
      fake
        .inputsOf('runLlmStep')
        .map((input) => input.step.name)
        .sort(),
    ).toEqual(['case 0', 'case 1']);
    expect(fake.inputsOf('finishRun').map((input) => input.status)).toEqual(['cancelled', 'cancelled']);
    expect(ends).toEqual([expect.objectContaining({ status: 'cancelled' })]);
  });
});
