// A sub_workflow step: the child is recorded by an activity (its uuid drawn by the parent, one level deeper),
// runs as a Temporal child workflow `run-<uuid>` of the same run workflow, and its end is read back by a
// second activity, whatever the child's status; cancelling the parent cancels the child first.
import { randomUUID } from 'node:crypto';
import { CancelledFailure } from '@temporalio/common';
import type { PreparedRun, SubWorkflowStep } from '@app/contracts';
import { chainRun, llmStep, output, rowOf } from './support/definitions';
import { useEngine } from './support/engine';
import { FakeActivities, llmAnswers, runEnd, untilCancelled } from './support/fake-activities';

describe('Run workflow: sub_workflow steps', () => {
  const engine = useEngine();
  const childRun = (childUuid: string, steps = [llmStep('child step')]): PreparedRun => ({
    ...chainRun(steps, { heartbeat_timeout_seconds: 2 }),
    run_uuid: childUuid,
    depth: 1,
  });
  const callStep = (): SubWorkflowStep => ({
    uuid: randomUUID(),
    type: 'sub_workflow',
    name: 'call',
    description: '',
    workflow_uuid: randomUUID(),
    retry_policy: { max_attempts: 1 },
  });

  it('starts the child one level deeper, waits for it, then takes its end as the step’s output', async () => {
    const [call, after] = [callStep(), llmStep('after')];
    const run = chainRun([call, after]);
    const fake = new FakeActivities({
      ...runEnd(),
      startSubWorkflow: async ({ child_run_uuid }) => childRun(child_run_uuid),
      runLlmStep: llmAnswers({ 'child step': () => output(), after: () => output() }),
      completeSubWorkflow: async () => output(),
    });

    const sut = await engine.start(run, fake);

    await expect(sut.result()).resolves.toEqual({ status: 'completed', error_message: null });
    const [started] = fake.inputsOf('startSubWorkflow');
    expect(started).toMatchObject({ instance_uuid: rowOf(run, call), depth: 1 });
    expect(fake.callsTo('runLlmStep').map(({ input }) => input.run_uuid)).toEqual([started.child_run_uuid, run.run_uuid]);
    expect(fake.inputsOf('completeSubWorkflow')).toEqual([expect.objectContaining({ child_run_uuid: started.child_run_uuid })]);
    // The child ends its own run; the parent then ends its.
    expect(fake.inputsOf('finishRun').map((input) => input.run_uuid)).toEqual([started.child_run_uuid, run.run_uuid]);
  });

  it('a failed child still has its end read: the step fails with what completeSubWorkflow says', async () => {
    const run = chainRun([callStep()]);
    const fake = new FakeActivities({
      ...runEnd(),
      startSubWorkflow: async ({ child_run_uuid }) => childRun(child_run_uuid),
      runLlmStep: llmAnswers({
        'child step': () => {
          throw new Error('child broke');
        },
      }),
      completeSubWorkflow: async () => {
        throw new Error('sub-workflow run ended failed: child broke');
      },
    });

    const sut = await engine.start(run, fake);

    await expect(sut.failure()).resolves.toMatchObject({ message: 'Step "call" failed: sub-workflow run ended failed: child broke' });
    expect(fake.inputsOf('completeSubWorkflow')).toHaveLength(1);
  });

  it('cancelling the parent cancels the child, which closes its rows before the parent ends', async () => {
    const run = chainRun([callStep()]);
    const fake = new FakeActivities({
      ...runEnd(),
      startSubWorkflow: async ({ child_run_uuid }) => childRun(child_run_uuid, [llmStep('child step', { execution: 'queued' })]),
      runLlmStep: llmAnswers({ 'child step': () => untilCancelled() }),
    });

    const sut = await engine.start(run, fake);
    await fake.called('runLlmStep');
    await sut.handle.cancel();

    await expect(sut.failure()).resolves.toBeInstanceOf(CancelledFailure);
    const childUuid = fake.inputsOf('startSubWorkflow')[0].child_run_uuid;
    expect(fake.inputsOf('finishRun').map(({ run_uuid, status }) => [run_uuid, status])).toEqual([
      [childUuid, 'cancelled'],
      [run.run_uuid, 'cancelled'],
    ]);
    expect(fake.inputsOf('completeSubWorkflow')).toHaveLength(0);
  });
});
