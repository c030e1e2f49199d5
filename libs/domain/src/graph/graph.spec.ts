import { randomUUID } from 'node:crypto';
import type { EdgeDefinition, GraphDefinition, StepDefinition } from '@app/contracts';
import { ErrorCode } from '../errors';
import { errorOf } from '../errors.testing';
import { parseWorkflowInput } from '../definition/parse';
import { chainAsGraph, graphAsChain } from './chain-graph';
import { graphIssues } from './graph-issues';
import { parseGraph, validateDefinition } from './parse-graph';

const agent = (name: string): StepDefinition => ({
  uuid: randomUUID(),
  type: 'custom_agent',
  name,
  description: '',
  model: 'm',
  system_prompt: 'route',
  tools: [],
});
const executor = (name = 'tool_executor'): StepDefinition => ({ uuid: randomUUID(), type: 'tool_executor', name, description: '' });
const edge = (
  source: StepDefinition,
  target: StepDefinition | null,
  condition_value: string | null = null,
  extra: Partial<EdgeDefinition> = {},
): EdgeDefinition => ({
  uuid: randomUUID(),
  source_step_uuid: source.uuid,
  target_step_uuid: target?.uuid ?? null,
  condition_type: condition_value === null && !extra.conditions ? 'ALWAYS' : 'CONDITIONAL',
  condition_value,
  ...extra,
});
const codesOf = (steps: StepDefinition[], graph: GraphDefinition) => graphIssues(steps, graph).map((issue) => [issue.code, issue.field]);

describe(graphIssues.name, () => {
  const [router, worker, research, tools] = [agent('Router'), agent('Worker'), agent('Research'), executor()];
  const steps = [router, worker, research, tools];
  // The shape of the 2nChat example (test/fixtures/agentic-2nChat.json): a router, a worker using tools, a per-tool edge, a fallback back to the router.
  const routerGraph: GraphDefinition = {
    entry_node: router.uuid,
    edges: [
      edge(router, worker, 'Worker'),
      edge(router, null, 'END'),
      edge(worker, tools, 'tool_executor'),
      edge(worker, router, 'Router'),
      edge(tools, research, 'search_web'),
      edge(tools, router),
      edge(research, router, 'Router'),
    ],
  };

  it('takes join "all" where edges from two steps meet, and refuses it elsewhere (chains included)', () => {
    const joining = { ...agent('Joining'), join: 'all' as const };
    const meet = {
      entry_node: router.uuid,
      edges: [edge(router, worker), edge(router, research), edge(worker, joining), edge(research, joining)],
    };
    expect(graphIssues([router, worker, research, joining], meet)).toEqual([]);
    const single = { entry_node: router.uuid, edges: [edge(router, worker), edge(worker, joining), edge(worker, joining, 'again')] };
    expect(codesOf([router, worker, joining], single)).toEqual([[ErrorCode.InvalidJoin, 'steps[2].join']]);
    expect(errorOf(() => validateDefinition([router, joining], null))).toMatchObject({
      code: ErrorCode.InvalidJoin,
      details: { field: 'steps[1].join' },
    });
  });

  it('accepts a router graph with a tool executor, END edges and cycles', () => {
    expect(graphIssues(steps, routerGraph)).toEqual([]);
  });

  it('refuses an unknown entry node and edge endpoints, naming the field', () => {
    const stranger = agent('stranger');
    const graph = { entry_node: stranger.uuid, edges: [edge(stranger, router), edge(router, stranger)] };
    expect(codesOf(steps, graph)).toEqual([
      [ErrorCode.UnknownGraphNode, 'graph.entry_node'],
      [ErrorCode.UnknownGraphNode, 'graph.edges[0].source_step_uuid'],
      [ErrorCode.UnknownGraphNode, 'graph.edges[1].target_step_uuid'],
    ]);
  });

  it('refuses two CONDITIONAL edges from one step with the same value', () => {
    const graph = { ...routerGraph, edges: [...routerGraph.edges, edge(router, research, 'worker')] };
    expect(codesOf(steps, graph)).toEqual([[ErrorCode.DuplicateRoute, 'graph.edges[7].condition_value']]);
  });

  it('refuses a second ALWAYS edge from a tool executor', () => {
    const graph = { ...routerGraph, edges: [...routerGraph.edges, edge(tools, worker)] };
    expect(codesOf(steps, graph)).toEqual([[ErrorCode.DuplicateRoute, 'graph.edges[7].condition_type']]);
  });

  it('refuses an END edge with a target, and an ALWAYS edge with a value', () => {
    const end = { ...edge(research, worker, 'END') };
    const always = { ...edge(research, worker), condition_value: 'Worker' };
    expect(codesOf(steps, { ...routerGraph, edges: [...routerGraph.edges, end, always] })).toEqual([
      [ErrorCode.InvalidEdge, 'graph.edges[7].target_step_uuid'],
      [ErrorCode.InvalidEdge, 'graph.edges[8].condition_value'],
    ]);
  });

  it('refuses an agent routed to a tool executor that is not one', () => {
    const graph = {
      ...routerGraph,
      edges: routerGraph.edges.map((e) => (e.condition_value === 'tool_executor' ? { ...e, target_step_uuid: research.uuid } : e)),
    };
    expect(codesOf(steps, graph)).toEqual([
      [ErrorCode.InvalidEdge, 'graph.edges[2].target_step_uuid'],
      [ErrorCode.UnreachableStep, 'steps[3]'],
    ]);
    const nowhere = {
      ...routerGraph,
      edges: [...routerGraph.edges.filter((e) => e.condition_value !== 'tool_executor'), edge(worker, null, 'tool_executor')],
    };
    expect(codesOf(steps, nowhere)).toContainEqual([ErrorCode.InvalidEdge, 'graph.edges[6].target_step_uuid']);
  });

  it('refuses an edge into a tool executor from a step that is not an agent', () => {
    const reader: StepDefinition = {
      uuid: randomUUID(),
      type: 'custom_llm',
      name: 'reader',
      description: '',
      model: 'm',
      system_prompt: 'read',
    };
    const graph = { ...routerGraph, edges: [...routerGraph.edges, edge(router, reader, 'reader'), edge(reader, tools)] };
    expect(codesOf([...steps, reader], graph)).toEqual([[ErrorCode.InvalidEdge, 'graph.edges[8].source_step_uuid']]);
  });

  it('refuses steps that no path from the entry reaches', () => {
    const graph = { entry_node: router.uuid, edges: [edge(router, worker), edge(worker, null), edge(research, tools)] };
    expect(codesOf(steps, graph)).toEqual([
      [ErrorCode.UnreachableStep, 'steps[2]'],
      [ErrorCode.UnreachableStep, 'steps[3]'],
    ]);
  });

  it('takes a human_input hand-off step that no edge reaches, and refuses one of another type', () => {
    const handoff: StepDefinition = {
      uuid: randomUUID(),
      type: 'human_input',
      name: 'Handoff',
      description: '',
      prompt: 'Stuck: what now?',
    };
    expect(codesOf([...steps, handoff], { ...routerGraph, human_handoff_step_uuid: handoff.uuid })).toEqual([]);
    expect(codesOf(steps, { ...routerGraph, human_handoff_step_uuid: worker.uuid })).toEqual([
      [ErrorCode.UnknownGraphNode, 'graph.human_handoff_step_uuid'],
    ]);
  });

  it('checks data conditions with the filter-rule language', () => {
    const graph = {
      entry_node: router.uuid,
      edges: [
        edge(router, worker, null, { conditions: { path: 'price', operator: 'greater_than', value: 1 } }),
        edge(router, research),
        edge(research, tools),
      ],
    };
    expect(codesOf([router, worker, research, tools], graph)).toEqual([[ErrorCode.ValidationFailed, 'graph.edges[0].conditions.path']]);
  });
});

describe(parseGraph.name, () => {
  it('fills in edge uuids and nulls, and lower-cases uuids', () => {
    const [a, b] = [agent('a'), agent('b')];
    const parsed = parseGraph(
      {
        entry_node: a.uuid.toUpperCase(),
        edges: [{ source_step_uuid: a.uuid, target_step_uuid: b.uuid.toUpperCase(), condition_type: 'ALWAYS' }],
      },
      'graph',
      () => 'e-1',
    );
    expect(parsed).toEqual({
      entry_node: a.uuid,
      edges: [{ uuid: 'e-1', source_step_uuid: a.uuid, target_step_uuid: b.uuid, condition_type: 'ALWAYS', condition_value: null }],
    });
  });

  it('refuses a malformed graph naming the field', () => {
    expect(errorOf(() => parseGraph({ entry_node: 'x', edges: [{ condition_type: 'SOMETIMES' }] }, 'graph', randomUUID))).toMatchObject({
      code: ErrorCode.ValidationFailed,
      details: { field: 'graph.entry_node' },
    });
  });
});

describe('chains as graphs', () => {
  const steps = [agent('a'), agent('b'), agent('c')];

  it('writes a chain as ALWAYS edges and reads exactly that graph back as the chain', () => {
    const graph = chainAsGraph(steps, () => randomUUID())!;
    expect(graphIssues(steps, graph)).toEqual([]);
    expect(graphAsChain([steps[2], steps[0], steps[1]], graph)).toEqual(steps);
    expect(graphAsChain(steps, { ...graph, edges: graph.edges.slice(0, 2) })).toBeNull();
    expect(graphAsChain(steps, { ...graph, edges: [...graph.edges.slice(0, 2), edge(steps[2], steps[0])] })).toBeNull();
    expect(graphAsChain(steps, { ...graph, is_conversational: true })).toBeNull(); // a conversation runs once per message
    expect(graphAsChain(steps, { ...graph, timeout_seconds: 60 })).toBeNull(); // its guard rail would be lost
  });

  it('stores a workflow body whose graph is a chain as that chain', () => {
    const parsed = parseWorkflowInput(
      { name: 'wf', steps: [steps[1], steps[0], steps[2]], graph: chainAsGraph(steps, () => randomUUID()) },
      randomUUID,
    );
    expect(parsed.graph).toBeNull();
    expect(parsed.steps.map((step) => step.name)).toEqual(['a', 'b', 'c']);
  });

  it('refuses tool executors outside graphs, and allows references to any step inside one', () => {
    const tools = executor();
    expect(errorOf(() => validateDefinition([steps[0], tools], null))).toMatchObject({ details: { field: 'steps[1].type' } });
    const reader = { ...agent('reader'), system_prompt: `read <<step_output.${steps[0].uuid}>>` } as StepDefinition;
    const graph = {
      entry_node: reader.uuid,
      edges: [edge(reader, steps[0]), edge(steps[0], reader, 'again'), edge(steps[0], null, 'END')],
    };
    expect(() => validateDefinition([reader, steps[0]], graph)).not.toThrow();
    expect(errorOf(() => validateDefinition([reader, steps[0]], null))).toMatchObject({ code: ErrorCode.ForwardStepReference });
  });
});
