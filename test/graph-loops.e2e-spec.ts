// Loops inside graph runs end to end: a looping step is one execution of its graph step, its iterations
// nested beneath that execution (step row -> execution row -> iteration rows), and the step's edges and
// later steps read the loop's output.
import { reply } from './support/model-fake';
import { executionHistories } from './support/temporal-history';
import { useStack, type RunBody, type Stack } from './support/stack';
import { graphEdge, llmStep } from './support/factories';

type Step = { uuid: string; name: string };

/** The tokens the model fake reports for every call (10 prompt + 5 completion). */
const TOKENS_A_CALL = 15;

describe('Loops in graph runs', () => {
  let stack: Stack;

  useStack((started) => (stack = started));

  const run = (steps: Step[], graph: Record<string, unknown>, trigger_output: unknown) =>
    stack.runSteps(steps, trigger_output, { fields: { graph } });

  const stepNamed = (run: RunBody, name: string) => run.steps.find((step: RunBody) => step.name === name);
  const systemPrompts = () => stack.model.requests.map((request) => request.body.messages[0].content as string);
  const priceAbove = (index: number, value: number) => ({
    condition_type: 'CONDITIONAL',
    conditions: { path: `$[${index}].price`, operator: 'greater_than', value },
  });
  const priceBelow = (index: number, value: number) => ({
    condition_type: 'CONDITIONAL',
    conditions: { path: `$[${index}].price`, operator: 'less_than', value },
  });

  it('runs a for_each step inside a graph: one execution, its iterations beneath it, its edges and the next step reading the list', async () => {
    const items = [{ name: 'apple' }, { name: 'pear' }, { name: 'plum' }];
    const plan = llmStep({ name: 'plan', system_prompt: 'Plan pricing of <<trigger_output.items.length>> items' });
    const each = llmStep({
      name: 'each',
      system_prompt: 'Price <<item.name>> (index <<item_index>>)',
      loop: { type: 'for_each', input_path: '<<trigger_output.items>>' },
    });
    const report = llmStep({ name: 'report', system_prompt: 'PLACEHOLDER' });
    const cheap = llmStep({ name: 'cheap', system_prompt: 'Only cheap prices' });
    report.system_prompt = `Report on <<step_output.${each.uuid}.length>> prices (<<step_output.${each.uuid}[-1].length>> in the latest run): <<step_output.${each.uuid}>>`;
    const graph = {
      entry_node: plan.uuid,
      edges: [
        graphEdge(plan, each),
        graphEdge(each, report, null, priceAbove(2, 25)),
        graphEdge(each, cheap, null, priceBelow(2, 26)),
        graphEdge(report, null),
        graphEdge(cheap, null),
      ],
    };
    const prices = [{ price: 10 }, { price: 20 }, { price: 30 }];
    stack.model.script(reply.text('a plan'), ...prices.map((price) => reply.json(price)), reply.text('the report'));

    const done = await run([plan, each, report, cheap], graph, { items });

    expect(done.status).toBe('completed');
    expect(systemPrompts()).toEqual([
      'Plan pricing of 3 items',
      'Price apple (index 0)',
      'Price pear (index 1)',
      'Price plum (index 2)',
      `Report on 3 prices (3 in the latest run): ${JSON.stringify(prices, null, 2)}`,
    ]);

    // The step's row: one execution, closed with its output (the loop's list), its tokens its iterations' calls two levels down.
    const step = stepNamed(done, 'each');
    expect(step).toMatchObject({
      status: 'completed',
      iteration_count: 1,
      output: { raw_data: prices },
      tokens: { total: 3 * TOKENS_A_CALL },
    });
    // The execution: the loop's own row, with how it ended and its iterations beneath it. (How rows nest in the view: run.views.spec.)
    const [execution] = step.iterations;
    const loop = { type: 'for_each', iterations: 3, stopped_by: 'exhausted' };
    expect(execution).toMatchObject({
      iteration: 0,
      status: 'completed',
      input_data: { item_count: 3 },
      loop,
      iteration_count: 3,
      output: { uuid: step.output.uuid, raw_data: prices },
    });
    expect(execution.iterations.map((it: RunBody) => [it.iteration, it.status, it.output.raw_data, it.messages[0].content])).toEqual(
      items.map((item, i) => [i, 'completed', prices[i], `Price ${item.name} (index ${i})`]),
    );

    expect(stepNamed(done, 'report')).toMatchObject({ status: 'completed', iteration_count: 1, output: { raw_data: 'the report' } });
    expect(stepNamed(done, 'cheap').status).toBe('skipped');
    expect(done.steps).toHaveLength(4); // executions and iterations are nested, not steps of their own
    expect(done.tokens.total).toBe(5 * TOKENS_A_CALL);
  });

  it('runs a repeat_until step once per visit of a cycle, each execution looping until its predicate holds', async () => {
    const draft = llmStep({
      name: 'draft',
      system_prompt: 'PLACEHOLDER',
      loop: { type: 'repeat_until', predicate_path: '$.done', predicate_value: true, max_iters: 3 },
    });
    const review = llmStep({ name: 'review', system_prompt: 'PLACEHOLDER' });
    // Inside the loop: the latest draft so far (an earlier iteration's, or the earlier execution's output).
    draft.system_prompt = `Improve draft <<step_output.${draft.uuid}.round|0>>`;
    // After it: the latest execution's output, and with [-2] the one before (a graph step's history is its executions).
    review.system_prompt = `Review draft <<step_output.${draft.uuid}.round>> (before: <<step_output.${draft.uuid}[-2].round|none>>)`;
    const approved = (value: boolean) => ({ condition_type: 'CONDITIONAL', conditions: { path: '$.approved', operator: 'equals', value } });
    const graph = {
      entry_node: draft.uuid,
      max_steps: 10,
      edges: [graphEdge(draft, review), graphEdge(review, draft, null, approved(false)), graphEdge(review, null, null, approved(true))],
    };
    stack.model.script(
      reply.json({ round: 1, done: false }),
      reply.json({ round: 2, done: true }),
      reply.json({ approved: false }),
      reply.json({ round: 3, done: true }),
      reply.json({ approved: true }),
    );

    const done = await run([draft, review], graph, {});

    expect(done.status).toBe('completed');
    expect(systemPrompts()).toEqual([
      'Improve draft 0',
      'Improve draft 1',
      'Review draft 2 (before: none)',
      'Improve draft 2',
      'Review draft 3 (before: 2)',
    ]);

    const step = stepNamed(done, 'draft');
    expect(step).toMatchObject({ status: 'completed', iteration_count: 2, output: { raw_data: { round: 3, done: true } } });
    expect(step.tokens.total).toBe(3 * TOKENS_A_CALL);
    const [first, second] = step.iterations;
    expect(first).toMatchObject({
      iteration: 0,
      status: 'completed',
      loop: { type: 'repeat_until', iterations: 2, stopped_by: 'predicate' },
      iteration_count: 2,
      output: { raw_data: { round: 2, done: true } },
    });
    expect(first.iterations.map((it: RunBody) => [it.iteration, it.output.raw_data.round])).toEqual([
      [0, 1],
      [1, 2],
    ]);
    // repeat_until's output is its last iteration's, referenced: the execution and the step point at it.
    expect(first.output.uuid).toBe(first.iterations[1].output.uuid);
    expect(second).toMatchObject({
      iteration: 1,
      loop: { iterations: 1, stopped_by: 'predicate' },
      iteration_count: 1,
      iterations: [{ iteration: 0, output: { raw_data: { round: 3 } } }],
    });
    expect(step.output.uuid).toBe(second.iterations[0].output.uuid);
    expect(stepNamed(done, 'review')).toMatchObject({ status: 'completed', iteration_count: 2, output: { raw_data: { approved: true } } });
  });

  it('fails the execution of a for_each whose input is not an array, the error on the row its start opened', async () => {
    const each = llmStep({
      name: 'each',
      system_prompt: 'Do <<item>>',
      loop: { type: 'for_each', input_path: '<<trigger_output.items>>' },
    });
    const after = llmStep({ name: 'after' });

    const done = await run([each, after], { entry_node: each.uuid, edges: [graphEdge(each, after)] }, { items: 'not a list' });

    expect(done.status).toBe('failed');
    expect(done.error_message).toContain('does not name an array');
    expect(stepNamed(done, 'each')).toMatchObject({
      status: 'failed',
      iteration_count: 1,
      iterations: [{ iteration: 0, status: 'failed', error_message: expect.stringContaining('does not name an array') }],
    });
    expect(stepNamed(done, 'each').iterations[0]).not.toHaveProperty('iterations');
    expect(stepNamed(done, 'after').status).toBe('skipped');
    expect(stack.model.requests).toHaveLength(0);
  });
});

describe('A long loop inside a graph run', () => {
  let stack: Stack;
  useStack((started) => (stack = started), { loopIterationsPerExecution: 4 });

  it("continues the run as new inside the loop when it is the walk's only branch, the walk carried over: same execution row, guard rails and next step", async () => {
    const items = Array.from({ length: 10 }, (_, i) => ({ n: i }));
    const plan = llmStep({ name: 'plan', system_prompt: 'Plan the work' });
    const each = llmStep({
      name: 'each',
      system_prompt: 'Item <<item.n>>',
      loop: { type: 'for_each', input_path: '<<trigger_output.items>>' },
    });
    const report = llmStep({ name: 'report', system_prompt: 'PLACEHOLDER' });
    report.system_prompt = `Report on <<step_output.${each.uuid}.length>> items after <<step_output.${plan.uuid}>>`;
    stack.model.respondWith((request) => reply.text(`answer to ${request.body.messages[0].content}`));
    // A data condition on the loop's output (a chain-shaped graph would be stored as a chain).
    const lastItemDone = { conditions: { path: '$[9]', operator: 'contains', value: 'Item 9' } };
    const graph = {
      entry_node: plan.uuid,
      max_steps: 3,
      edges: [graphEdge(plan, each), graphEdge(each, report, null, lastItemDone), graphEdge(report, null)],
    };

    const done = await stack.runSteps([plan, each, report], { items }, { fields: { graph } });

    expect(done.status).toBe('completed');
    // 10 iterations at 4 an execution: the run continued as new twice, inside the loop.
    expect(await executionHistories(done.temporal.workflow_id)).toHaveLength(3);
    // Every step's row closed by the last execution, the plan's too: the walk's tally was carried over.
    expect(done.steps.map((step: RunBody) => [step.name, step.status])).toEqual([
      ['plan', 'completed'],
      ['each', 'completed'],
      ['report', 'completed'],
    ]);
    const loop = done.steps.find((step: RunBody) => step.name === 'each');
    expect(loop).toMatchObject({ status: 'completed', iteration_count: 1 }); // one execution of the step, not one per Temporal execution
    expect(loop!.iterations[0]).toMatchObject({
      status: 'completed',
      loop: { iterations: 10, stopped_by: 'exhausted' },
      iteration_count: 10,
    });
    expect(loop!.iterations[0].iterations.map((it: RunBody) => it.output.raw_data)).toEqual(
      items.map((item) => `answer to Item ${item.n}`),
    );
    // max_steps 3 counts the three executions across Temporal executions; the report reads the walk's earlier outputs.
    expect(stack.model.requests.at(-1)!.body.messages[0].content).toBe('Report on 10 items after answer to Plan the work');
  });
});
