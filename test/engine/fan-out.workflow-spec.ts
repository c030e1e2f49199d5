// A for_each with max_concurrency runs that many items at once, each on its own row under its index; with
// on_item_failure "continue" it goes on past failed items and hands their errors to the end activity; with
// "fail_fast" the first failure cancels the items in flight. Continue-as-new waits for the items in flight.
import { setTimeout as sleep } from 'node:timers/promises';
import type { ContinuedLoop, ForEachLoop, PreparedRun } from '@app/contracts';
import { chainRun, edge, graphRun, llmStep, output, rowOf } from './support/definitions';
import { useEngine, type RunUnderTest } from './support/engine';
import { FakeActivities, llmAnswers, runEnd, untilCancelled } from './support/fake-activities';

describe('Run workflow: a for_each fanning out', () => {
  const engine = useEngine();
  /** The loop position execution `runId` of the run started with (its continue-as-new input). */
  const continuedLoopOf = async (sut: RunUnderTest, runId: string): Promise<ContinuedLoop> => {
    const history = await sut.handle.client.getHandle(sut.handle.workflowId, runId).fetchHistory();
    const [payload] = history.events![0].workflowExecutionStartedEventAttributes!.input!.payloads!;
    return (JSON.parse(Buffer.from(payload.data!).toString()) as PreparedRun).continued!;
  };
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
    expect(fake.inputsOf('completeLoop').map(({ iterations, stopped_by }) => ({ iterations, stopped_by }))).toEqual([
      { iterations: 7, stopped_by: 'exhausted' },
    ]);
  });

  it('continue: the other items go on, each failed one’s row keeps its error, and the end activity gets no list of them', async () => {
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
    // The end activity reads the failed items from their rows: no payload grows with their number.
    expect(fake.inputsOf('completeLoop')[0]).toMatchObject({ iterations: 5 });
    expect(fake.inputsOf('completeLoop')[0]).not.toHaveProperty('failed_items');
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

  it('continues as new once the items in flight have ended, with the next index and the failures’ count and first one', async () => {
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
    const executions = [...byExecution.keys()];
    expect(await continuedLoopOf(sut, executions[1])).toMatchObject({
      next_iteration: 4,
      failures: { count: 1, first: { item_index: 2, error: 'item 2 broke' } },
    });
    expect(await continuedLoopOf(sut, executions[2])).toMatchObject({
      next_iteration: 8,
      failures: { count: 1, first: { item_index: 2, error: 'item 2 broke' } },
    });
    expect(fake.inputsOf('completeLoop').map(({ iterations }) => iterations)).toEqual([10]);
  });

  it('continue: what the workflow carries stays the same size however many items fail, the first failure’s error cut', async () => {
    const each = forEach('each', { max_concurrency: 10, on_item_failure: 'continue' });
    const run = chainRun([each], { iterations_per_execution: 40 });
    const long = (index: number) => `item ${index} broke: ${'x'.repeat(2000)}`;
    const fake = new FakeActivities({
      ...runEnd(),
      runLlmStep: llmAnswers({
        each: async ({ execution }) => {
          if (execution!.index === 119) return output();
          throw new Error(long(execution!.index));
        },
      }),
      startLoop: async () => ({ item_count: 120, truncated: false }),
      completeLoop: async () => output(),
    });

    const sut = await engine.start(run, fake);

    await expect(sut.result()).resolves.toEqual({ status: 'completed', error_message: null });
    const executions = [...new Set(fake.callsTo('runLlmStep').map((call) => call.run_id))];
    expect(executions).toHaveLength(3);
    const carried = await Promise.all(executions.slice(1).map((runId) => continuedLoopOf(sut, runId)));
    expect(carried.map((loop) => loop.failures)).toEqual([
      { count: 40, first: { item_index: 0, error: long(0).slice(0, 500) } },
      { count: 80, first: { item_index: 0, error: long(0).slice(0, 500) } },
    ]);
    expect(carried.every((loop) => loop.failed_items === undefined)).toBe(true);
    // The same few hundred bytes after 40 failures as after 80: nothing in them lists the failed items.
    expect(JSON.stringify(carried[1]).length).toBe(JSON.stringify(carried[0]).length);
    expect(fake.inputsOf('completeLoop')[0]).not.toHaveProperty('failed_items');
  });

  it('continue: an execution handed the failed items themselves (by an older worker) counts them on', async () => {
    const each = forEach('each', { max_concurrency: 2, on_item_failure: 'continue' });
    const run = chainRun([each]);
    const legacy = [
      { item_index: 1, error: 'item 1 broke' },
      { item_index: 2, error: 'item 2 broke' },
    ];
    const fake = new FakeActivities({
      ...runEnd(),
      runLlmStep: llmAnswers({
        each: () => {
          throw new Error('no');
        },
      }),
      completeLoop: async () => output(),
    });
    const continued = {
      step_uuid: each.uuid,
      previous_step_uuid: null,
      next_iteration: 3,
      item_count: 4,
      truncated: false,
      failed_items: legacy,
    };

    const sut = await engine.start({ ...run, continued }, fake);

    // Items 0 (done before) and 3 (failed now) besides the two listed: not every item failed.
    await expect(sut.result()).resolves.toEqual({ status: 'completed', error_message: null });
    expect(fake.inputsOf('runLlmStep').map((input) => input.execution!.index)).toEqual([3]);
    expect(fake.inputsOf('completeLoop')).toHaveLength(1);
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
