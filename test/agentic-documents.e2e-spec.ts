// The agentic document format: its 2nChat example imports as written (agentIds naming the user's agent steps,
// node-uuid-6 the agent its edge names), shows as a graph, exports back to the same shape, and imports again
// onto the same workflow. (conversations.e2e-spec.ts runs it.)
import { randomUUID } from 'node:crypto';
import { startApi, testConfig, type ApiClient, type TestApi } from './support/api';
import { agentStep } from './support/factories';
import { TWO_N_CHAT as SEED, TWO_N_CHAT_AGENTS as AGENT_NAMES, twoNChat as seedDocument } from './support/agentic-2nchat';

describe('Agentic documents', () => {
  let api: TestApi;
  let user: ApiClient;
  const agentUuid = new Map<string, string>();

  beforeAll(async () => {
    api = await startApi(testConfig({ modelBaseUrl: 'http://127.0.0.1:9/v1' }));
    user = await api.newUser();
    // The agents a 2nChat document names live in the user's workflows already (an agentic document refers to agents, it does not define them).
    const steps = Object.entries(AGENT_NAMES).map(([agentId, name]) => {
      const step = agentStep({ name, system_prompt: `You are ${name}.`, tools: name === 'externalSearchCaller' ? ['http_request'] : [] });
      agentUuid.set(agentId, step.uuid);
      return step;
    });
    expect((await user.post('/workflows', { name: `agents-${randomUUID().slice(0, 8)}`, steps })).status).toBe(201);
  });
  afterAll(() => api.close());

  const twoNChat = () => seedDocument(agentUuid);

  it('imports the 2nChat document as printed as a graph workflow, exports it back and imports that onto the same workflow', async () => {
    const asPrinted = twoNChat();
    expect(asPrinted.nodes.map((node) => node.id)).not.toContain('node-uuid-6');
    const imported = await user.post('/workflows/import', asPrinted);
    expect(imported.status).toBe(201);
    const workflow = imported.body;
    expect(workflow.steps.map((step: { name: string; type: string }) => [step.name, step.type])).toEqual([
      ['Router', 'custom_agent'],
      ['RC2', 'custom_agent'],
      ['DM2', 'custom_agent'],
      ['2N', 'custom_agent'],
      ['tool_executor', 'tool_executor'],
      ['externalSearchCaller', 'custom_agent'],
    ]);
    // Agent nodes copy the agent step they name: prompt and tools.
    expect(workflow.steps[5]).toMatchObject({ system_prompt: 'You are externalSearchCaller.', tools: ['http_request'] });
    expect(workflow.graph).toMatchObject({ entry_node: workflow.steps[0].uuid, is_conversational: true });
    expect(workflow.graph.edges).toHaveLength(18);
    const byName = new Map(workflow.steps.map((step: { name: string; uuid: string }) => [step.uuid, step.name]));
    const route = (edge: Record<string, string | null>) =>
      `${byName.get(edge.source_step_uuid)} -${edge.condition_value ?? 'ALWAYS'}-> ${edge.target_step_uuid ? byName.get(edge.target_step_uuid) : 'END'}`;
    expect(workflow.graph.edges.map(route)).toEqual(
      expect.arrayContaining([
        'Router -RC2-> RC2',
        'Router -END-> END',
        'tool_executor -external_research-> externalSearchCaller',
        'tool_executor -ALWAYS-> Router',
      ]),
    );

    const exported = await user.get(`/workflows/${workflow.uuid}/export?format=agentic`);
    expect(exported.body).toMatchObject({
      id: workflow.uuid,
      name: SEED.name,
      isConversational: true,
      entrypointNodeId: workflow.steps[0].uuid,
    });
    expect(exported.body.nodes.map((node: { nodeType: string; nodeName: string }) => `${node.nodeType}:${node.nodeName}`)).toEqual([
      'AGENT:Router',
      'AGENT:RC2',
      'AGENT:DM2',
      'AGENT:2N',
      'TOOL_EXECUTOR:tool_executor',
      'AGENT:externalSearchCaller',
    ]);
    expect(exported.body.edges).toHaveLength(18);

    const again = await user.post('/workflows/import', exported.body);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ uuid: workflow.uuid, graph: workflow.graph });
    expect((await user.get('/workflows')).body.items.filter((item: { name: string }) => item.name === SEED.name)).toHaveLength(1);

    // The document as printed again: onto the workflow it created, its own copy of externalSearchCaller no rival.
    const reimported = await user.post('/workflows/import', asPrinted);
    expect(reimported.status).toBe(200);
    expect(reimported.body).toMatchObject({ uuid: workflow.uuid, graph: workflow.graph });
  });

  it('refuses, writing nothing, a document missing a node that no CONDITIONAL edge from an agent names', async () => {
    const before = (await user.get('/workflows')).body.total;
    // Without edge-uuid-15 (Router -externalSearchCaller->), only the tool executor's edge leads to node-uuid-6, and its value is a tool name.
    const unnamed = twoNChat();
    unnamed.edges = unnamed.edges.filter((edge) => edge.id !== 'edge-uuid-15');
    const refused = await user.post('/workflows/import', unnamed);
    expect(refused).toMatchObject({ status: 422, body: { code: 'UNKNOWN_GRAPH_NODE', details: { field: 'edges[14].sourceNodeId' } } });
    expect(refused.body.details.errors.map((issue: { field: string }) => issue.field)).toEqual([
      'edges[14].sourceNodeId',
      'edges[15].targetNodeId',
    ]);
    expect((await user.get('/workflows')).body.total).toBe(before);
  });

  it('refuses, writing nothing, the example as printed when two different agent steps are named externalSearchCaller', async () => {
    const other = await api.newUser();
    const agents = Object.entries(AGENT_NAMES).map(([agentId, name]) => {
      const step = agentStep({ name, system_prompt: `You are ${name}.` });
      return [agentId, step] as const;
    });
    const rival = agentStep({ name: 'externalSearchCaller', system_prompt: 'You are another searcher.' });
    expect((await other.post('/workflows', { name: 'agents', steps: agents.map(([, step]) => step) })).status).toBe(201);
    expect((await other.post('/workflows', { name: 'rival', steps: [rival] })).status).toBe(201);
    const refused = await other.post('/workflows/import', seedDocument(new Map(agents.map(([agentId, step]) => [agentId, step.uuid]))));
    expect(refused).toMatchObject({ status: 422, body: { code: 'UNKNOWN_GRAPH_NODE', details: { field: 'edges[14].targetNodeId' } } });
    expect(refused.body.message).toContain('several of your agent steps (custom_agent) are named externalSearchCaller');
    expect((await other.get('/workflows')).body.total).toBe(2);
  });

  it('refuses an agentId that names none of the user’s agent steps, writing nothing', async () => {
    const document = twoNChat();
    document.nodes[1] = { ...document.nodes[1], agentId: randomUUID() };
    const refused = await user.post('/workflows/import', document);
    expect(refused).toMatchObject({ status: 422, body: { code: 'UNKNOWN_GRAPH_NODE', details: { field: 'nodes[1].agentId' } } });
    const other = await api.newUser();
    const theirs = await other.post('/workflows/import', twoNChat());
    expect(theirs.body).toMatchObject({ code: 'UNKNOWN_GRAPH_NODE', details: { field: 'nodes[0].agentId' } });
    expect((await other.get('/workflows')).body.total).toBe(0);
  });

  it('refuses an agentic export of a chain, and an unknown format', async () => {
    const chain = (await user.post('/workflows', { name: `chain-${randomUUID().slice(0, 8)}`, steps: [agentStep()] })).body;
    expect((await user.get(`/workflows/${chain.uuid}/export?format=agentic`)).body).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: { field: 'format' },
    });
    expect((await user.get(`/workflows/${chain.uuid}/export?format=yaml`)).body).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: { field: 'format' },
    });
  });
});
