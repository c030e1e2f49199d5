// Dry runs: the real workflow on Temporal, answered by the built-in dry-run model, with no provider
// request, no tool call, no notification and no person asked; marked as such and costing nothing.
import { randomUUID } from 'node:crypto';
import { agentStep, graphEdge, llmStep, stopChecker, toolExecutorStep } from './support/factories';
import { reply } from './support/model-fake';
import { useStack, type RunBody, type Stack } from './support/stack';
import { ToolServer } from './support/tool-server';

describe('Dry runs', () => {
  let stack: Stack;
  let tools: ToolServer;

  useStack((started) => (stack = started));
  beforeAll(async () => {
    tools = await ToolServer.start({ search_web: () => ({ price: 1 }), query_db: () => ({ rows: [] }), notify: () => ({ ok: true }) });
  });
  afterAll(() => tools?.close());

  async function registerTool(handler: string, parameters: Record<string, unknown> = { type: 'object' }): Promise<string> {
    const name = `${handler}_${randomUUID().slice(0, 6)}`;
    expect(
      (await stack.user.post('/tools', { name, description: `the ${handler} tool`, parameters, endpoint_url: tools.url(handler) })).status,
    ).toBe(201);
    return name;
  }

  async function dryRun(workflowUuid: string, trigger_output: unknown = { products: ['iPhone 15 Pro'] }): Promise<RunBody> {
    const started = await stack.user.post(`/workflows/${workflowUuid}/runs`, { trigger_output, dry_run: true });
    expect(started).toMatchObject({ status: 201, body: { dry_run: true } });
    return stack.waitForRun(started.body.uuid);
  }

  it('runs a price monitor workflow with made-up answers that follow each step schema, calling no provider and no tool', async () => {
    const search = await registerTool('search_web', {
      type: 'object',
      required: ['product', 'competitor'],
      properties: { product: { type: 'string' }, competitor: { enum: ['Amazon', 'Walmart'] } },
    });
    const history = await registerTool('query_db');
    const price = {
      type: 'object',
      required: ['product', 'price'],
      properties: { product: { type: 'string' }, competitor: { type: 'string' }, price: { type: 'number' }, url: { type: 'string' } },
    };
    const fetcher = agentStep({
      name: 'Price Fetcher',
      tools: [search],
      output_schema: { type: 'object', required: ['prices'], properties: { prices: { type: 'array', items: price } } },
    });
    const comparator = agentStep({
      name: 'Price Comparator',
      tools: [history],
      system_prompt: 'Compare <<step_output.' + fetcher.uuid + '>> with yesterday',
      output_schema: {
        type: 'object',
        required: ['alerts', 'summary'],
        properties: {
          alerts: {
            type: 'array',
            items: { type: 'object', properties: { product: { type: 'string' }, change_percent: { type: 'number' } } },
          },
          summary: { type: 'string' },
        },
      },
    });
    const checker = stopChecker(comparator.uuid, {
      name: 'No alerts',
      stop_conditions: [
        { step_definition_uuid: comparator.uuid, extraction_json_path: '$.alerts.length', operator: 'equals', target_value: 0 },
      ],
    });
    const sender = llmStep({
      name: 'Alert Sender',
      output_schema: {
        type: 'object',
        required: ['status', 'message_count', 'file_saved'],
        properties: {
          status: { enum: ['sent', 'no_alerts', 'failed'] },
          message_count: { type: 'integer' },
          file_saved: { type: 'boolean' },
        },
      },
    });
    const workflow = await stack.createWorkflow([fetcher, comparator, checker, sender], {
      notify_url: tools.url('notify'),
      notify_on_complete: true,
    });

    const run = await dryRun(workflow.uuid);

    expect(run).toMatchObject({ status: 'completed', dry_run: true, tokens: { total: 0 } });
    expect(stack.model.requests).toHaveLength(0);
    expect(tools.calls).toHaveLength(0);
    const [fetched, compared, , sent] = run.steps;
    expect(fetched.output.raw_data).toEqual({ prices: [{ product: 'dry run 0', competitor: 'dry run 0', price: 0, url: 'dry run 0' }] });
    expect(fetched.tool_calls).toEqual([
      expect.objectContaining({
        tool_name: search,
        status: 'completed',
        input: { product: 'dry run 0', competitor: 'Amazon' },
        output: { dry_run: true, tool: search, arguments: { product: 'dry run 0', competitor: 'Amazon' } },
      }),
    ]);
    expect(new Set(fetched.model_calls.map((call: RunBody) => call.response.model))).toEqual(new Set(['dry-run']));
    expect(compared.output.raw_data).toMatchObject({ summary: 'dry run 0' });
    expect(sent.output.raw_data).toEqual({ status: 'sent', message_count: 0, file_saved: true });
    expect(run.notification).toBeNull();
    const description = await (await stack.temporal()).workflow.getHandle(run.temporal.workflow_id).describe();
    expect(description.memo).toMatchObject({ dry_run: true });
  });

  it('walks a graph workflow: the router tries its routes in turn, the tool executor answers without calling the tool', async () => {
    const research = await registerTool('search_web');
    const router = agentStep({ name: 'Router', system_prompt: 'Route the work' });
    const worker = agentStep({ name: 'Worker', system_prompt: 'Do the work', tools: [research] });
    const analyst = agentStep({ name: 'Research', system_prompt: 'Interpret the research' });
    const executor = toolExecutorStep();
    const graph = {
      entry_node: router.uuid,
      max_steps: 20,
      edges: [
        graphEdge(router, worker, 'Worker'),
        graphEdge(router, null, 'END'),
        graphEdge(worker, executor, 'tool_executor'),
        graphEdge(executor, analyst, research),
        graphEdge(executor, router),
        graphEdge(analyst, router),
      ],
    };
    const workflow = await stack.createWorkflow([router, worker, analyst, executor], { graph });

    const run = await dryRun(workflow.uuid, { topic: 'prices' });

    expect(run).toMatchObject({ status: 'completed', dry_run: true, tokens: { total: 0 } });
    const routes = run.steps
      .find((step: RunBody) => step.name === 'Router')
      .iterations.map((execution: RunBody) => execution.output.raw_data.next);
    expect(routes).toEqual(['Worker', 'END']);
    expect(run.steps.find((step: RunBody) => step.name === 'tool_executor').iterations[0].output.raw_data).toEqual([
      { tool: research, arguments: {}, result: { dry_run: true, tool: research, arguments: {} } },
    ]);
    expect(stack.model.requests).toHaveLength(0);
    expect(tools.calls).toHaveLength(0);
  });

  it('asks nobody: a human_input step takes an answer made up from its input_schema', async () => {
    const approval = {
      uuid: randomUUID(),
      type: 'human_input',
      name: 'approve',
      prompt: 'Approve?',
      input_schema: { type: 'object', required: ['approved'], properties: { approved: { type: 'boolean' } } },
    };
    const workflow = await stack.createWorkflow([approval, llmStep({ name: 'after' })]);
    const run = await dryRun(workflow.uuid);
    expect(run).toMatchObject({ status: 'completed', steps: [{ output: { raw_data: { approved: true } } }, { status: 'completed' }] });
    expect(stack.model.requests).toHaveLength(0);
  });

  it('refuses a dry_run that is not a boolean, and keeps a dry run and a real one apart under one key', async () => {
    const workflow = await stack.createWorkflow([llmStep()]);
    expect(await stack.user.post(`/workflows/${workflow.uuid}/runs`, { dry_run: 'yes' })).toMatchObject({
      status: 422,
      body: { details: { field: 'dry_run' } },
    });
    const key = { 'Idempotency-Key': `key-${randomUUID()}` };
    const dry = await stack.user.post(`/workflows/${workflow.uuid}/runs`, { dry_run: true }, key);
    await stack.waitForRun(dry.body.uuid);
    stack.model.script(reply.text('a real answer'));
    const real = await stack.user.post(`/workflows/${workflow.uuid}/runs`, {}, key);
    expect(real.status).toBe(201);
    expect(real.body.uuid).not.toBe(dry.body.uuid);
    expect(await stack.waitForRun(real.body.uuid)).toMatchObject({
      status: 'completed',
      dry_run: false,
      steps: [{ output: { raw_data: 'a real answer' } }],
    });
  });
});
