// A for_each with max_concurrency runs that many items at once, each on its own row under its index; with
// on_item_failure "continue" it goes on past failed items and hands their errors to the end activity; with
// "fail_fast" the first failure cancels the items in flight. Continue-as-new waits for the items in flight.
import { setTimeout as sleep } from 'node:timers/promises';
import type { ForEachLoop } from '@app/contracts';
import { chainRun, edge, graphRun, llmStep, output, rowOf } from './support/definitions';
import { useEngine } from './support/engine';
import { FakeActivities, llmAnswers, runEnd, untilCancelled } from './support/fake-activities';

describe('Run workflow: a for_each fanning out', () => {
  const engine = useEngine();
  const forEach = (name: string, loop: Partial<ForEachLoop>) =>
    llmStep(name, { loop: { type: 'for_each', input_path: '<<trigger_output.items>>', ...loop } });

  /** Items answered after `ms`, counting how many ran at once. */
  const overlapping = (ms: number) => {
    let running = 0;
    const seen = { most: 0 };
    const answer = async () => {
      running += 1;
      seen.most = Math.max(seen.most, running);
      await sleep(ms);
      running -= 1;
      return output();
    };
    return { answer, seen };
  };

  it('runs up to max_concurrency items at once, each index once under the loop’s row, then gathers them', async () => {
    const each = forEach('each', { max_concurrency: 3 });
    const run = chainRun([each]);
    const items = overlapping(300);
    const fake = new FakeActivities({
      ...runEnd(),
      runLlmStep: llmAnswers({ each: items.answer }),
      startLoop: async () => ({ item_count: 7, truncated: false }),
      completeLoop: async () => output(),
    });

    const sut = await engine.start(run, fake);

    await expect(sut.result()).resolves.toEqual({ status: 'completed', error_message: null });
    expect(items.seen.most).toBe(3);
    const iterations = fake.inputsOf('runLlmStep');
    expect(iterations.map((input) => input.execution!.index).sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(iterations.every((input) => input.execution!.parent_instance_uuid === rowOf(run, each))).toBe(true);
    expect(new Set(iterations.map((input) => input.instance_uuid)).size).toBe(7);
    expect(
      fake.inputsOf('completeLoop').map(({ iterations, stopped_by, failed_items }) => ({ iterations, stopped_by, failed_items })),
    ).toEqual([{ iterations: 7, stopped_by: 'exhausted', failed_items: undefined }]);
  });

  it('continue: the other items go on, and the end activity gets the failed ones in item order with their errors', async () => {
    const each = forEach('each', { max_concurrency: 2, on_item_failure: 'continue' });
    const after = llmStep('after');
    const fake = new FakeActivities({
      ...runEnd(),
      runLlmStep: llmAnswers({
        each: async ({ execution }) => {
          await sleep(50 * (5 - execution!.index));
          if (execution!.index === 1 || execution!.index === 3) throw new Error(`item ${execution!.index} broke`);
          return output();
        },
        after: () => output(),
      }),
      startLoop: async () => ({ item_count: 5, truncated: false }),
      completeLoop: async () => output(),
    });

    const sut = await engine.start(chainRun([each, after]), fake);

    await expect(sut.result()).resolves.toEqual({ status: 'completed', error_message: null });
    expect(fake.inputsOf('completeLoop')[0].failed_items).toEqual([
      { item_index: 1, error: 'item 1 broke' },
      { item_index: 3, error: 'item 3 broke' },
    ]);
    const failedRows = fake.inputsOf('failStep').map((input) => input.error_message);
    expect(failedRows.sort()).toEqual(['item 1 broke', 'item 3 broke']);
    expect(fake.inputsOf('runLlmStep').map((input) => input.step.name)).toContain('after');
  });

  it('continue: a step whose every item failed fails', async () => {
    const fake = new FakeActivities({
      ...runEnd(),
      runLlmStep: llmAnswers({
        each: () => {
          throw new Error('no');
        },
      }),
      startLoop: async () => ({ item_count: 2, truncated: false }),
    });

    const sut = await engine.start(chainRun([forEach('each', { max_concurrency: 2, on_item_failure: 'continue' })]), fake);

    await expect(sut.failure()).resolves.toMatchObject({ message: 'Step "each" failed: every item of step "each" failed; the first: no' });
  });

  it('fail_fast: the first failure cancels the items in flight, starts no more, and fails the step', async () => {
    const fake = new FakeActivities({
      ...runEnd(),
      runLlmStep: llmAnswers({
        each: async ({ execution }) => {
          if (execution!.index !== 1) return await untilCancelled();
          await sleep(300);
          throw new Error('item 1 broke');
        },
      }),
      startLoop: async () => ({ item_count: 10, truncated: false }),
    });

    // Short: a queued activity hears of the cancellation at its next heartbeat sent (80 % of this).
    const sut = await engine.start(chainRun([forEach('each', { max_concurrency: 3 })], { heartbeat_timeout_seconds: 2 }), fake);

    await expect(sut.failure()).resolves.toMatchObject({ type: 'StepFailed', message: 'Step "each" failed: item 1 broke' });
    expect(fake.inputsOf('runLlmStep').map((input) => input.execution!.index)).toEqual([0, 1, 2]);
    expect(
      fake
        .inputsOf('failStep')
        .map((input) => input.error_message)
        .sort(),
    ).toEqual([
      'Cancelled while running',
      'Cancelled while running',
      'item 1 broke',
      // the step's own row
      'item 1 broke',
    ]);
    expect(fake.inputsOf('completeLoop')).toHaveLength(0);
  });

  it('continues as new once the items in flight have ended, with the next index and the failures so far', async () => {
    const each = forEach('each', { max_concurrency: 3, on_item_failure: 'continue' });
    const run = chainRun([each], { iterations_per_execution: 4 });
    const fake = new FakeActivities({
      ...runEnd(),
      runLlmStep: llmAnswers({
        each: async ({ execution }) => {
          await sleep(20 * (execution!.index % 3));
          if (execution!.index === 2) throw new Error('item 2 broke');
          return output();
        },
      }),
      startLoop: async () => ({ item_count: 10, truncated: false }),
      completeLoop: async () => output(),
    });

    const sut = await engine.start(run, fake);

    await expect(sut.result()).resolves.toEqual({ status: 'completed', error_message: null });
    const byExecution = new Map<string, number[]>();
    for (const { input, run_id } of fake.callsTo('runLlmStep'))
      byExecution.set(run_id, [...(byExecution.get(run_id) ?? []), input.execution!.index]);
    expect([...byExecution.values()].map((indexes) => indexes.sort((a, b) => a - b))).toEqual([
      [0, 1, 2, 3],
      [4, 5, 6, 7],
      [8, 9],
    ]);
    expect(fake.inputsOf('startLoop')).toHaveLength(1);
    expect(fake.inputsOf('completeLoop').map(({ iterations, failed_items }) => ({ iterations, failed_items }))).toEqual([
      { iterations: 10, failed_items: [{ item_index: 2, error: 'item 2 broke' }] },
    ]);
  });

  it('fans out inside a graph, the loop one execution of its step', async () => {
    const [each, after] = [forEach('each', { max_concurrency: 4 }), llmStep('after')];
    const run = graphRun([each, after], { edges: [edge(each, after), edge(after, null)] });
    const items = overlapping(200);
    const fake = new FakeActivities({
      ...runEnd(),
      runLlmStep: llmAnswers({ each: items.answer, after: () => output() }),
      startLoop: async () => ({ item_count: 8, truncated: false }),
      completeLoop: async () => output(),
    });

    const sut = await engine.start(run, fake);

    await expect(sut.result()).resolves.toEqual({ status: 'completed', error_message: null });
    expect(items.seen.most).toBe(4);
    const [loopRow] = fake.inputsOf('startLoop').map((input) => input.instance_uuid);
    const iterations = fake.inputsOf('runLlmStep').filter((input) => input.step.name === 'each');
    expect(iterations.every((input) => input.execution!.parent_instance_uuid === loopRow)).toBe(true);
    expect(fake.inputsOf('completeLoop')[0]).toMatchObject({ instance_uuid: loopRow, iterations: 8 });
  });
});
