// Graph definitions through REST: saved whole or refused whole, chains exported as graphs and read back.
import { randomUUID } from 'node:crypto';
import { startApi, testConfig, type ApiClient, type TestApi } from './support/api';
import { agentStep, llmStep, graphEdge, toolExecutorStep } from './support/factories';

describe('Graph definitions', () => {
  let api: TestApi;
  let user: ApiClient;

  beforeAll(async () => {
    api = await startApi(testConfig({ modelBaseUrl: 'http://127.0.0.1:9/v1' }));
    user = await api.newUser();
  });
  afterAll(() => api.close());

  function routerWorkflow() {
    const [router, worker, research, tools] = [
      agentStep({ name: 'Router' }),
      agentStep({ name: 'Worker', tools: ['http_request'] }),
      agentStep({ name: 'Research' }),
      toolExecutorStep(),
    ];
    const graph = {
      entry_node: router.uuid,
      edges: [
        graphEdge(router, worker, 'Worker'),
        graphEdge(router, null, 'END'),
        graphEdge(worker, tools, 'tool_executor'),
        graphEdge(tools, research, 'http_request'),
        graphEdge(tools, router),
        graphEdge(research, router, 'Router'),
      ],
    };
    return { steps: [router, worker, research, tools], graph, router, worker, tools };
  }

  it('saves a conversational router graph with a tool executor and a looping router, and shows it', async () => {
    const {
      steps: [router, ...others],
      graph: routerGraph,
    } = routerWorkflow();
    const steps = [{ ...router, loop: { type: 'repeat_until', predicate_path: '$.done', predicate_value: true, max_iters: 5 } }, ...others];
    const graph = { ...routerGraph, is_conversational: true, idle_timeout_seconds: 600 };
    const created = await user.post('/workflows', { name: `graph-${randomUUID().slice(0, 8)}`, steps, graph });
    expect(created.status).toBe(201);
    expect(created.body.graph).toMatchObject({
      entry_node: graph.entry_node,
      is_conversational: true,
      idle_timeout_seconds: 600,
      edges: graph.edges.map((e) => ({ ...e, uuid: expect.any(String) })),
    });
    const exported = await user.get(`/workflows/${created.body.uuid}/export`);
    expect(exported.body.workflow.graph).toEqual(created.body.graph);
    expect(created.body.steps[0]).toMatchObject({ uuid: router.uuid, loop: { type: 'repeat_until', max_iters: 5 } });
  });

  it('refuses every invalid graph with its code and field, writing nothing', async () => {
    const { steps, graph, router, worker, tools } = routerWorkflow();
    const stranger = randomUUID();
    const cases: [Record<string, unknown>, string, string][] = [
      [{ ...graph, entry_node: stranger }, 'UNKNOWN_GRAPH_NODE', 'graph.entry_node'],
      [
        { ...graph, edges: [...graph.edges, { ...graphEdge(router, worker), target_step_uuid: stranger }] },
        'UNKNOWN_GRAPH_NODE',
        'graph.edges[6].target_step_uuid',
      ],
      [{ ...graph, edges: [...graph.edges, graphEdge(router, tools, 'worker')] }, 'DUPLICATE_ROUTE', 'graph.edges[6].condition_value'],
      [{ ...graph, edges: [...graph.edges, graphEdge(tools, worker)] }, 'DUPLICATE_ROUTE', 'graph.edges[6].condition_type'],
      [{ ...graph, edges: [...graph.edges, graphEdge(worker, router, 'END')] }, 'INVALID_EDGE', 'graph.edges[6].target_step_uuid'],
      [
        { ...graph, edges: graph.edges.map((e) => (e.condition_value === 'tool_executor' ? { ...e, target_step_uuid: router.uuid } : e)) },
        'INVALID_EDGE',
        'graph.edges[2].target_step_uuid',
      ],
      [{ ...graph, edges: graph.edges.filter((e) => e.condition_value !== 'Worker') }, 'UNREACHABLE_STEP', 'steps[1]'],
      [{ ...graph, edges: [{ condition_type: 'SOMETIMES' }] }, 'VALIDATION_FAILED', 'graph.edges[0].source_step_uuid'],
    ];
    for (const [badGraph, code, field] of cases) {
      const name = `bad-${randomUUID().slice(0, 8)}`;
      const refused = await user.post('/workflows', { name, steps, graph: badGraph });
      expect({
        field,
        status: refused.status,
        code: refused.body.code,
        at: refused.body.details?.errors?.map((e: { field: string }) => e.field),
      }).toEqual({ field, status: 422, code, at: expect.arrayContaining([field]) });
      expect((await user.get(`/steps/${steps[0].uuid}`)).status).toBe(404);
    }
  });

  it('sets and removes a graph on a saved workflow, and keeps step edits consistent with it', async () => {
    const [first, second, tools] = [llmStep({ name: 'first' }), llmStep({ name: 'second' }), toolExecutorStep()];
    const created = (await user.post('/workflows', { name: `wf-${randomUUID().slice(0, 8)}`, steps: [first, second] })).body;
    expect(created.graph).toBeNull();
    const graph = { entry_node: second.uuid, edges: [graphEdge(second, first), graphEdge(first, null)] };
    const set = await user.call('PUT', `/workflows/${created.uuid}/graph`, graph);
    expect(set.status).toBe(200);
    expect(set.body.graph.entry_node).toBe(second.uuid);
    // A tool executor is refused in a chain, accepted once the graph reaches it.
    const chainOnly = await user.post(`/workflows/${created.uuid}/steps`, tools);
    expect(chainOnly.body).toMatchObject({ code: 'UNREACHABLE_STEP' });
    // Removing a step an edge names is refused: the graph would point at nothing.
    const removal = await user.call('DELETE', `/workflows/${created.uuid}/steps/${first.uuid}`);
    expect(removal.body).toMatchObject({ code: 'UNKNOWN_GRAPH_NODE', details: { field: 'graph.edges[0].target_step_uuid' } });
    const removed = await user.call('DELETE', `/workflows/${created.uuid}/graph`);
    expect(removed.body).toMatchObject({ graph: null, steps: [{ uuid: first.uuid }, { uuid: second.uuid }] });
    const refused = await user.post(`/workflows/${created.uuid}/steps`, tools);
    expect(refused.body).toMatchObject({ code: 'INVALID_EDGE', details: { field: 'steps[2].type' } });
  });

  it('exports a chain as a graph of ALWAYS edges, and importing it gives the same chain', async () => {
    const steps = [llmStep({ name: 'one' }), llmStep({ name: 'two' }), llmStep({ name: 'three' })];
    const created = (await user.post('/workflows', { name: `chain-${randomUUID().slice(0, 8)}`, steps })).body;
    const document = (await user.get(`/workflows/${created.uuid}/export`)).body;
    expect(document.workflow.graph.entry_node).toBe(steps[0].uuid);
    expect(
      document.workflow.graph.edges.map((e: Record<string, unknown>) => [e.source_step_uuid, e.target_step_uuid, e.condition_type]),
    ).toEqual([
      [steps[0].uuid, steps[1].uuid, 'ALWAYS'],
      [steps[1].uuid, steps[2].uuid, 'ALWAYS'],
      [steps[2].uuid, null, 'ALWAYS'],
    ]);
    const imported = await user.post('/workflows/import', document);
    expect(imported.status).toBe(200);
    expect(imported.body).toMatchObject({
      uuid: created.uuid,
      graph: null,
      steps: steps.map((step) => ({ uuid: step.uuid, name: step.name })),
    });
  });
});
