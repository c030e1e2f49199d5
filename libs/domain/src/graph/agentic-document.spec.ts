import { randomUUID } from 'node:crypto';
import type { CustomAgentStep, StepDefinition, WorkflowDefinition } from '@app/contracts';
import { ErrorCode } from '../errors';
import { errorOf } from '../errors.testing';
import { parseWorkflowInput } from '../definition/parse';
import {
  fromAgenticDocument,
  isAgenticDocument,
  toAgenticDocument,
  type AgenticDocument,
  type AgenticImportContext,
} from './agentic-document';

const agentStep = (name: string): CustomAgentStep => ({
  uuid: randomUUID(),
  type: 'custom_agent',
  name,
  description: '',
  model: 'm',
  system_prompt: `You are ${name}.`,
  tools: ['http_request'],
});

/** A cut of the 2nChat example (test/fixtures/agentic-2nChat.json): a router, a worker, the tool executor routing back to the router, END edges. */
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
    {
      id: 'edge-uuid-7',
      sourceNodeId: 'node-uuid-2',
      targetNodeId: 'node-uuid-5',
      conditionType: 'CONDITIONAL',
      conditionValue: 'tool_executor',
    },
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
  /** The user's agent steps by name, for nodes the edges use without listing; set per test. */
  let named: CustomAgentStep[] = [];
  beforeEach(() => {
    named = [];
  });
  const uuids = new Map<string, string>();
  const context: AgenticImportContext = {
    uuidFor: (kind, documentId) => {
      const key = `${kind}:${documentId}`;
      if (!uuids.has(key)) uuids.set(key, randomUUID());
      return uuids.get(key)!;
    },
    agentStep: (agentId) => agents.get(agentId) ?? null,
    agentStepsNamed: (name) => named.filter((agent) => agent.name === name),
  };
  const uuidOf = (documentId: string) => context.uuidFor('node', documentId);
  const definitionOf = (document: AgenticDocument): WorkflowDefinition => {
    const input = parseWorkflowInput(fromAgenticDocument(document, context), randomUUID);
    return { ...input, uuid: input.uuid! };
  };
  /** Each edge as `source -value-> target` by node name, whatever the ids. */
  const routes = (document: AgenticDocument) => {
    const nameOf = new Map(document.nodes.map((node) => [node.id, node.nodeName]));
    return document.edges.map(
      (edge) =>
        `${nameOf.get(edge.sourceNodeId)} -${edge.conditionValue ?? 'ALWAYS'}-> ${edge.targetNodeId === null ? 'END' : nameOf.get(edge.targetNodeId)}`,
    );
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
    const { graph } = fromAgenticDocument(twoNChat(), context) as {
      graph: { entry_node: string; is_conversational: boolean; edges: unknown[] };
    };
    expect(graph.entry_node).toBe(uuidOf('node-uuid-1'));
    expect(graph.is_conversational).toBe(true);
    expect(graph.edges[1]).toEqual({
      uuid: context.uuidFor('edge', 'edge-uuid-5'),
      source_step_uuid: uuidOf('node-uuid-1'),
      target_step_uuid: null,
      condition_type: 'CONDITIONAL',
      condition_value: 'END',
    });
    expect(graph.edges[4]).toMatchObject({
      source_step_uuid: uuidOf('node-uuid-5'),
      target_step_uuid: uuidOf('node-uuid-1'),
      condition_type: 'ALWAYS',
      condition_value: null,
    });
  });

  it('names each unknown agent and node in one error', () => {
    const document = twoNChat();
    document.nodes[1].agentId = 'agent-uuid-nobody';
    document.edges[2].targetNodeId = 'node-uuid-6';
    const error = errorOf(() => fromAgenticDocument(document, context));
    expect(error.code).toBe(ErrorCode.UnknownGraphNode);
    expect((error.details?.errors as { field: string }[]).map((issue) => issue.field)).toEqual([
      'nodes[1].agentId',
      'edges[2].targetNodeId',
    ]);
  });

  describe('a node the edges use but nodes does not list (the 2nChat example as written)', () => {
    /** 2nChat's node-uuid-6: the router routes to it by name, it calls tools, its tool's result comes back to it. */
    const withSearchCaller = (): AgenticDocument => {
      const document = twoNChat();
      document.edges.push(
        {
          id: 'edge-uuid-15',
          sourceNodeId: 'node-uuid-1',
          targetNodeId: 'node-uuid-6',
          conditionType: 'CONDITIONAL',
          conditionValue: 'externalSearchCaller',
        },
        {
          id: 'edge-uuid-16',
          sourceNodeId: 'node-uuid-6',
          targetNodeId: 'node-uuid-5',
          conditionType: 'CONDITIONAL',
          conditionValue: 'tool_executor',
        },
        {
          id: 'edge-uuid-17',
          sourceNodeId: 'node-uuid-5',
          targetNodeId: 'node-uuid-6',
          conditionType: 'CONDITIONAL',
          conditionValue: 'external_research',
        },
      );
      return document;
    };
    const refusalOf = (document: AgenticDocument) => {
      const error = errorOf(() => fromAgenticDocument(document, context));
      return {
        code: error.code,
        fields: (error.details?.errors as { field: string }[]).map((issue) => issue.field),
        message: error.message,
      };
    };

    it('is the agent step the CONDITIONAL edge from an AGENT node names, under that name', () => {
      const searchCaller = agentStep('externalSearchCaller');
      named = [searchCaller, agentStep('Someone else')];
      const body = fromAgenticDocument(withSearchCaller(), context);
      expect((body.steps as StepDefinition[]).at(-1)).toEqual({ ...searchCaller, uuid: uuidOf('node-uuid-6') });

      const exported = toAgenticDocument(definitionOf(withSearchCaller()));
      expect(exported.nodes.at(-1)).toMatchObject({
        id: uuidOf('node-uuid-6'),
        nodeType: 'AGENT',
        nodeName: 'externalSearchCaller',
        agentId: uuidOf('node-uuid-6'),
      });
      expect(routes(exported).slice(-3)).toEqual([
        'Router -externalSearchCaller-> externalSearchCaller',
        'externalSearchCaller -tool_executor-> tool_executor',
        'tool_executor -external_research-> externalSearchCaller',
      ]);
    });

    it('counts identical copies of one agent (an earlier import’s node) as one', () => {
      const searchCaller = agentStep('externalSearchCaller');
      named = [searchCaller, { ...searchCaller, uuid: randomUUID() }];
      expect((fromAgenticDocument(withSearchCaller(), context).steps as StepDefinition[]).at(-1)).toMatchObject({
        system_prompt: searchCaller.system_prompt,
      });
    });

    it('is refused, naming each edge that uses it, when no agent step has the name', () => {
      named = [agentStep('Someone else')];
      expect(refusalOf(withSearchCaller())).toMatchObject({
        code: ErrorCode.UnknownGraphNode,
        fields: ['edges[5].targetNodeId', 'edges[6].sourceNodeId', 'edges[7].targetNodeId'],
        message: expect.stringContaining('none of your agent steps (custom_agent) are named externalSearchCaller'),
      });
    });

    it('is refused when two different agent steps have the name', () => {
      named = [agentStep('externalSearchCaller'), { ...agentStep('externalSearchCaller'), system_prompt: 'Another one.' }];
      expect(refusalOf(withSearchCaller())).toMatchObject({
        code: ErrorCode.UnknownGraphNode,
        fields: ['edges[5].targetNodeId', 'edges[6].sourceNodeId', 'edges[7].targetNodeId'],
        message: expect.stringContaining('several'),
      });
    });

    it('is refused when only a tool executor’s edge (whose value is a tool name) or no CONDITIONAL edge leads to it', () => {
      named = [agentStep('external_research'), agentStep('externalSearchCaller')];
      const fromToolExecutor = withSearchCaller();
      fromToolExecutor.edges.splice(5, 1);
      expect(refusalOf(fromToolExecutor).fields).toEqual(['edges[5].sourceNodeId', 'edges[6].targetNodeId']);
      const always = twoNChat();
      always.edges.push({
        id: 'edge-uuid-19',
        sourceNodeId: 'node-uuid-2',
        targetNodeId: 'node-uuid-6',
        conditionType: 'ALWAYS',
        conditionValue: 'externalSearchCaller',
      });
      expect(refusalOf(always)).toMatchObject({
        fields: ['edges[5].targetNodeId'],
        message: expect.stringContaining('no CONDITIONAL edge from an AGENT node names it'),
      });
    });

    it('is refused when the CONDITIONAL edges to it name different agents', () => {
      named = [agentStep('externalSearchCaller'), agentStep('Searcher')];
      const document = withSearchCaller();
      document.edges.push({
        id: 'edge-uuid-19',
        sourceNodeId: 'node-uuid-2',
        targetNodeId: 'node-uuid-6',
        conditionType: 'CONDITIONAL',
        conditionValue: 'Searcher',
      });
      expect(refusalOf(document).message).toContain('several agents (externalSearchCaller, Searcher)');
    });
  });

  it('refuses a document that breaks the schema, naming the field', () => {
    const document = { ...twoNChat(), nodes: [{ id: 'node-uuid-1', nodeType: 'ROBOT', nodeName: 'Router' }] };
    const error = errorOf(() => fromAgenticDocument(document, context));
    expect([error.code, error.details?.field]).toEqual([ErrorCode.ValidationFailed, 'nodes[0].nodeType']);
  });

  it('round-trips: the exported definition is the same graph, its AGENT nodes naming their own steps', () => {
    const definition = definitionOf(twoNChat());
    const exported = toAgenticDocument(definition);
    expect(exported).toMatchObject({
      id: definition.uuid,
      name: '2nChat',
      isConversational: true,
      entrypointNodeId: uuidOf('node-uuid-1'),
    });
    expect(exported.nodes.map((node) => [node.nodeName, node.nodeType, node.agentId])).toEqual([
      ['Router', 'AGENT', uuidOf('node-uuid-1')],
      ['RC2', 'AGENT', uuidOf('node-uuid-2')],
      ['tool_executor', 'TOOL_EXECUTOR', null],
    ]);
    expect(routes(exported)).toEqual([
      'Router -RC2-> RC2',
      'Router -END-> END',
      'RC2 -tool_executor-> tool_executor',
      'RC2 -END-> END',
      'tool_executor -ALWAYS-> Router',
    ]);
  });

  it('refuses to export a chain-only workflow', () => {
    const chain: WorkflowDefinition = { ...definitionOf(twoNChat()), graph: undefined };
    expect(errorOf(() => toAgenticDocument(chain)).details?.field).toBe('format');
  });

  it('refuses to export a step the agentic format has no node for, naming it', () => {
    const definition = definitionOf(twoNChat());
    const waiting = { uuid: randomUUID(), type: 'human_input' as const, name: 'ask', description: '', prompt: 'Approve?' };
    expect(errorOf(() => toAgenticDocument({ ...definition, steps: [...definition.steps, waiting] })).details).toEqual({
      field: 'format',
      step_uuid: waiting.uuid,
    });
  });
});

describe(isAgenticDocument.name, () => {
  it('tells agentic documents from ours', () => {
    expect(isAgenticDocument(twoNChat())).toBe(true);
    expect(isAgenticDocument({ format: 'stepwise', workflow: { name: 'x', steps: [] } })).toBe(false);
    expect([null, [], 'nodes'].map(isAgenticDocument)).toEqual([false, false, false]);
  });
});
