import { randomUUID } from 'node:crypto';
import type { CustomAgentStep, WorkflowDefinition } from '@app/contracts';
import { ErrorCode } from '../errors';
import { errorOf } from '../errors.testing';
import { parseWorkflowInput } from '../definition/parse';
import { fromAgenticDocument, isAgenticDocument, toAgenticDocument, type AgenticDocument, type AgenticImportContext } from './agentic-document';

const agentStep = (name: string): CustomAgentStep => ({ uuid: randomUUID(), type: 'custom_agent', name, description: '', model: 'm', system_prompt: `You are ${name}.`, tools: ['http_request'] });

/** A cut of seed 004's 2nChat: a router, a worker, the tool executor routing back to the router, END edges. */
const twoNChat = (): AgenticDocument => ({
  id: '2nChat',
  name: '2nChat',
  isConversational: true,
  entrypointNodeId: 'node-uuid-1',
  nodes: [
    { id: 'node-uuid-1', nodeType: 'AGENT', nodeName: 'Router', agentId: 'agent-uuid-router' },
    { id: 'node-uuid-2', nodeType: 'AGENT', nodeName: 'RC2', agentId: 'agent-uuid-rc2' },
    { id: 'node-uuid-5', nodeType: 'TOOL_EXECUTOR', nodeName: 'tool_executor', agentId: null },
  ],
  edges: [
    { id: 'edge-uuid-1', sourceNodeId: 'node-uuid-1', targetNodeId: 'node-uuid-2', conditionType: 'CONDITIONAL', conditionValue: 'RC2' },
    { id: 'edge-uuid-5', sourceNodeId: 'node-uuid-1', targetNodeId: null, conditionType: 'CONDITIONAL', conditionValue: 'END' },
    { id: 'edge-uuid-7', sourceNodeId: 'node-uuid-2', targetNodeId: 'node-uuid-5', conditionType: 'CONDITIONAL', conditionValue: 'tool_executor' },
    { id: 'edge-uuid-8', sourceNodeId: 'node-uuid-2', targetNodeId: null, conditionType: 'CONDITIONAL', conditionValue: 'END' },
    // ALWAYS with a leftover value: the value means nothing there and is dropped.
    { id: 'edge-uuid-18', sourceNodeId: 'node-uuid-5', targetNodeId: 'node-uuid-1', conditionType: 'ALWAYS', conditionValue: 'Router' },
  ],
});

describe(fromAgenticDocument.name, () => {
  const agents = new Map([
    ['agent-uuid-router', agentStep('router agent')],
    ['agent-uuid-rc2', agentStep('rc2 agent')],
  ]);
  const uuids = new Map<string, string>();
  const context: AgenticImportContext = {
    uuidFor: (kind, documentId) => {
      const key = `${kind}:${documentId}`;
      if (!uuids.has(key)) uuids.set(key, randomUUID());
      return uuids.get(key)!;
    },
    agentStep: (agentId) => agents.get(agentId) ?? null,
  };
  const uuidOf = (documentId: string) => context.uuidFor('node', documentId);
  const definitionOf = (document: AgenticDocument): WorkflowDefinition => {
    const input = parseWorkflowInput(fromAgenticDocument(document, context), randomUUID);
    return { ...input, uuid: input.uuid! };
  };
  /** Each edge as `source -value-> target` by node name, whatever the ids. */
  const routes = (document: AgenticDocument) => {
    const nameOf = new Map(document.nodes.map((node) => [node.id, node.nodeName]));
    return document.edges.map((edge) => `${nameOf.get(edge.sourceNodeId)} -${edge.conditionValue ?? 'ALWAYS'}-> ${edge.targetNodeId === null ? 'END' : nameOf.get(edge.targetNodeId)}`);
  };

  it('converts AGENT nodes to copies of the agent steps they name, under the node name and uuid', () => {
    const body = fromAgenticDocument(twoNChat(), context);
    expect(body).toMatchObject({ uuid: context.uuidFor('workflow', '2nChat'), name: '2nChat', description: '' });
    expect(body.steps).toEqual([
      { ...agents.get('agent-uuid-router'), uuid: uuidOf('node-uuid-1'), name: 'Router' },
      { ...agents.get('agent-uuid-rc2'), uuid: uuidOf('node-uuid-2'), name: 'RC2' },
      { uuid: uuidOf('node-uuid-5'), type: 'tool_executor', name: 'tool_executor', description: '' },
    ]);
  });

  it('converts edges, END as a null target, and drops the value of ALWAYS edges', () => {
    const { graph } = fromAgenticDocument(twoNChat(), context) as { graph: { entry_node: string; is_conversational: boolean; edges: unknown[] } };
    expect(graph.entry_node).toBe(uuidOf('node-uuid-1'));
    expect(graph.is_conversational).toBe(true);
    expect(graph.edges[1]).toEqual({ uuid: context.uuidFor('edge', 'edge-uuid-5'), source_step_uuid: uuidOf('node-uuid-1'), target_step_uuid: null, condition_type: 'CONDITIONAL', condition_value: 'END' });
    expect(graph.edges[4]).toMatchObject({ source_step_uuid: uuidOf('node-uuid-5'), target_step_uuid: uuidOf('node-uuid-1'), condition_type: 'ALWAYS', condition_value: null });
  });

  it('names each unknown agent and node in one error', () => {
    const document = twoNChat();
    document.nodes[1].agentId = 'agent-uuid-nobody';
    document.edges[2].targetNodeId = 'node-uuid-6';
    const error = errorOf(() => fromAgenticDocument(document, context));
    expect(error.code).toBe(ErrorCode.UnknownGraphNode);
    expect((error.details?.errors as { field: string }[]).map((issue) => issue.field)).toEqual(['nodes[1].agentId', 'edges[2].targetNodeId']);
  });

  it('refuses a document that breaks the schema, naming the field', () => {
    const document = { ...twoNChat(), nodes: [{ id: 'node-uuid-1', nodeType: 'ROBOT', nodeName: 'Router' }] };
    const error = errorOf(() => fromAgenticDocument(document, context));
    expect([error.code, error.details?.field]).toEqual([ErrorCode.ValidationFailed, 'nodes[0].nodeType']);
  });

  it('round-trips: the exported definition is the same graph, its AGENT nodes naming their own steps', () => {
    const definition = definitionOf(twoNChat());
    const exported = toAgenticDocument(definition);
    expect(exported).toMatchObject({ id: definition.uuid, name: '2nChat', isConversational: true, entrypointNodeId: uuidOf('node-uuid-1') });
    expect(exported.nodes.map((node) => [node.nodeName, node.nodeType, node.agentId])).toEqual([
      ['Router', 'AGENT', uuidOf('node-uuid-1')],
      ['RC2', 'AGENT', uuidOf('node-uuid-2')],
      ['tool_executor', 'TOOL_EXECUTOR', null],
    ]);
    expect(routes(exported)).toEqual(['Router -RC2-> RC2', 'Router -END-> END', 'RC2 -tool_executor-> tool_executor', 'RC2 -END-> END', 'tool_executor -ALWAYS-> Router']);
  });

  it('refuses to export a chain-only workflow', () => {
    const chain: WorkflowDefinition = { ...definitionOf(twoNChat()), graph: undefined };
    expect(errorOf(() => toAgenticDocument(chain)).details?.field).toBe('format');
  });

  it('refuses to export a step seed 004 has no node for, naming it', () => {
    const definition = definitionOf(twoNChat());
    const waiting = { uuid: randomUUID(), type: 'human_input' as const, name: 'ask', description: '', prompt: 'Approve?' };
    expect(errorOf(() => toAgenticDocument({ ...definition, steps: [...definition.steps, waiting] })).details).toEqual({ field: 'format', step_uuid: waiting.uuid });
  });
});

describe(isAgenticDocument.name, () => {
  it('tells seed 004 documents from ours', () => {
    expect(isAgenticDocument(twoNChat())).toBe(true);
    expect(isAgenticDocument({ format: 'stepwise', workflow: { name: 'x', steps: [] } })).toBe(false);
    expect([null, [], 'nodes'].map(isAgenticDocument)).toEqual([false, false, false]);
  });
});
