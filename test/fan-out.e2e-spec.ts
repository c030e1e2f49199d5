// Workflows that compose (#29), end to end on one stack: a for_each running its items side by side, in
// item order whatever order they end in, and going on past failed items when asked; a graph step joining
// two branches of different lengths.
import { reply, type RecordedRequest } from './support/model-fake';
import { useStack, type RunBody, type Stack } from './support/stack';
import { graphEdge, llmStep } from './support/factories';

const MODEL_DELAY_MS = 200;

describe('Fan-out', () => {
  let stack: Stack;
  useStack((started) => (stack = started));

  const itemOf = (request: RecordedRequest) => Number(/item (\d+)/.exec(request.body.messages[0].content ?? '')![1]);

  /** The most requests that arrived within one model delay of each other: the calls in flight at once. */
  const mostAtOnce = (requests: RecordedRequest[]) =>
    Math.max(
      ...requests.map(
        (late) =>
          requests.filter((early) => early.received_at <= late.received_at && late.received_at - early.received_at < MODEL_DELAY_MS).length,
      ),
    );

  it('runs 50 items 10 at a time: each item asked once, the output in item order', async () => {
    const items = Array.from({ length: 50 }, (_, i) => i);
    const each = llmStep({
      name: 'each',
      system_prompt: 'Square item <<item>>',
      loop: { type: 'for_each', input_path: '<<trigger_output.items>>', max_concurrency: 10 },
    });
    stack.model.respondWith((request) => reply.json({ square: itemOf(request) ** 2 }, { delayMs: MODEL_DELAY_MS }));

    const done = await stack.runSteps([each], { items });

    expect(done.status).toBe('completed');
    const asked = stack.model.requests.map(itemOf);
    expect([...asked].sort((a, b) => a - b)).toEqual(items);
    const atOnce = mostAtOnce(stack.model.requests);
    expect(atOnce).toBeGreaterThan(1);
    expect(atOnce).toBeLessThanOrEqual(10);
    const step = done.steps[0] as RunBody;
    expect(step.output.raw_data).toEqual(items.map((i) => ({ square: i * i })));
    expect(step.loop).toEqual({ type: 'for_each', iterations: 50, stopped_by: 'exhausted' });
    expect(step.iterations.map((it: RunBody) => [it.iteration, it.status, it.output.raw_data.square])).toEqual(
      items.map((i) => [i, 'completed', i * i]),
    );
  });

  it('continue: two failing items are listed with their errors, the others’ outputs kept in order', async () => {
    const each = llmStep({
      name: 'each',
      system_prompt: 'Check item <<item>>',
      retry_policy: { max_attempts: 1 },
      loop: { type: 'for_each', input_path: '<<trigger_output.items>>', max_concurrency: 3, on_item_failure: 'continue' },
    });
    const after = llmStep({ name: 'after', system_prompt: `Failed: <<step_output.${each.uuid}.failed.length>>` });
    stack.model.respondWith((request) => {
      if (request.body.messages[0].content?.startsWith('Failed')) return reply.text('reported');
      const item = itemOf(request);
      return item === 2 || item === 4 ? reply.error(400, { message: `item ${item} is malformed` }) : reply.json({ ok: item });
    });

    const done = await stack.runSteps([each, after], { items: [0, 1, 2, 3, 4, 5] });

    expect(done.status).toBe('completed');
    const step = done.steps[0] as RunBody;
    expect(step.status).toBe('completed');
    expect(step.loop).toEqual({ type: 'for_each', iterations: 6, stopped_by: 'exhausted', failed_items: 2, outcome: 'partial_success' });
    expect(step.output.raw_data).toEqual({
      items: [{ ok: 0 }, { ok: 1 }, null, { ok: 3 }, null, { ok: 5 }],
      failed: [
        { item_index: 2, error: expect.stringContaining('item 2 is malformed') },
        { item_index: 4, error: expect.stringContaining('item 4 is malformed') },
      ],
      failed_count: 2,
    });
    expect(step.iterations.map((it: RunBody) => it.status)).toEqual([
      'completed',
      'completed',
      'failed',
      'completed',
      'failed',
      'completed',
    ]);
    expect(done.steps[1].messages[0].content).toBe('Failed: 2');
  });

  it('join "all": a graph step waits for both branches, then runs once reading both', async () => {
    const [start, short, long1, long2] = ['start', 'short', 'long-1', 'long-2'].map((name) => llmStep({ name, system_prompt: name }));
    const merge = llmStep({
      name: 'merge',
      join: 'all',
      system_prompt: `merge <<step_output.${short.uuid}>> and <<step_output.${long2.uuid}>> after $previous_output`,
    });
    stack.model.respondWith((request) => {
      const prompt = request.body.messages[0].content ?? '';
      return reply.text(prompt.startsWith('merge') ? 'merged' : `${prompt} done`);
    });
    const graph = {
      entry_node: start.uuid,
      edges: [
        graphEdge(start, short),
        graphEdge(start, long1),
        graphEdge(long1, long2),
        graphEdge(short, merge),
        graphEdge(long2, merge),
        graphEdge(merge, null),
      ],
    };

    const done = await stack.runSteps([start, short, long1, long2, merge], {}, { fields: { graph } });

    expect(done.status).toBe('completed');
    const merges = stack.model.requests.filter((request) => request.body.messages[0].content?.startsWith('merge'));
    expect(merges.map((request) => request.body.messages[0].content)).toEqual(['merge short done and long-2 done after long-2 done']);
    expect(done.steps.find((step) => step.name === 'merge')).toMatchObject({ status: 'completed', iteration_count: 1 });
  });
});
