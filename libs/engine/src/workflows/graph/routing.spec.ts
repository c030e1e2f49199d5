import type { EdgeDefinition, GraphDefinition } from '@app/contracts';
import { afterToolCalls, canReach, conditionalEdges, edgesFrom, nextTargets, routeChoices, toolHandOffEdge } from './routing';

let count = 0;
const edge = (source: string, target: string | null, fields: Partial<EdgeDefinition> = {}): EdgeDefinition => ({
  uuid: `e${++count}`,
  source_step_uuid: source,
  target_step_uuid: target,
  condition_type: fields.condition_value || fields.conditions ? 'CONDITIONAL' : 'ALWAYS',
  condition_value: null,
  ...fields,
});

describe('graph routing', () => {
  const toWriter = edge('router', 'writer', { condition_value: 'Writer' });
  const toEnd = edge('router', null, { condition_value: 'END' });
  const toReviewer = edge('router', 'reviewer', { condition_value: 'Reviewer', priority: 5 });
  const highScore = edge('router', 'alert', { conditions: { path: '$.score', operator: 'greater_than', value: 5 } });
  const always = edge('router', 'log');
  const graph: GraphDefinition = {
    entry_node: 'router',
    edges: [toWriter, toEnd, toReviewer, highScore, always, edge('writer', 'router')],
  };

  it('lists a step’s edges by priority, keeping the given order otherwise', () => {
    expect(edgesFrom(graph, 'router').map((e) => e.uuid)).toEqual([
      toReviewer.uuid,
      toWriter.uuid,
      toEnd.uuid,
      highScore.uuid,
      always.uuid,
    ]);
  });

  it('offers a router the condition values of its CONDITIONAL edges, END included', () => {
    expect(routeChoices(graph, 'router')).toEqual(['Reviewer', 'Writer', 'END']);
    expect(routeChoices(graph, 'writer')).toEqual([]);
    expect(conditionalEdges(graph, 'router')).toEqual([highScore]);
  });

  it('fires ALWAYS edges, the chosen route (any case) and the edges whose conditions held', () => {
    expect(nextTargets(graph, 'router', { route: 'writer', conditions_held: [] })).toEqual(['writer', 'log']);
    expect(nextTargets(graph, 'router', { route: 'Reviewer', conditions_held: [highScore.uuid] })).toEqual(['reviewer', 'alert', 'log']);
  });

  it('ends a branch on END: no target', () => {
    expect(nextTargets(graph, 'router', { route: 'END', conditions_held: [] })).toEqual(['log']);
    expect(nextTargets({ entry_node: 'a', edges: [edge('a', null)] }, 'a', { route: null, conditions_held: [] })).toEqual([]);
  });

  it('needs both the value and the conditions of an edge that has both, and names a target once', () => {
    const both = edge('a', 'b', { condition_value: 'B', conditions: { path: '$.ok', operator: 'equals', value: true } });
    const g: GraphDefinition = { entry_node: 'a', edges: [both, edge('a', 'b')] };
    expect(nextTargets({ ...g, edges: [both] }, 'a', { route: 'B', conditions_held: [] })).toEqual([]);
    expect(nextTargets(g, 'a', { route: 'B', conditions_held: [both.uuid] })).toEqual(['b']);
  });

  describe('tool executors', () => {
    const handOff = edge('worker', 'tools', { condition_value: 'tool_executor' });
    const research = edge('tools', 'research', { condition_value: 'external_research' });
    const fallback = edge('tools', 'router');
    const isToolExecutor = (uuid: string) => uuid === 'tools';
    const tiers: GraphDefinition = {
      entry_node: 'worker',
      edges: [edge('worker', null, { condition_value: 'END' }), handOff, research, fallback],
    };

    it('finds the edge an agent hands its tool calls along, CONDITIONAL or ALWAYS', () => {
      expect(toolHandOffEdge(tiers, 'worker', isToolExecutor)).toEqual(handOff);
      const always = edge('worker', 'tools');
      expect(toolHandOffEdge({ entry_node: 'worker', edges: [always] }, 'worker', isToolExecutor)).toEqual(always);
      expect(toolHandOffEdge(tiers, 'router', isToolExecutor)).toBeNull();
    });

    it('routes by the tool’s name first, then the ALWAYS edge, then back to the caller', () => {
      expect(afterToolCalls(tiers, 'tools', ['external_research'])).toEqual({ targets: ['research'], to_caller: false });
      expect(afterToolCalls(tiers, 'tools', ['lookup'])).toEqual({ targets: ['router'], to_caller: false });
      expect(afterToolCalls({ ...tiers, edges: [handOff, research] }, 'tools', ['lookup'])).toEqual({ targets: [], to_caller: true });
      expect(afterToolCalls({ ...tiers, edges: [handOff, edge('tools', null)] }, 'tools', ['lookup'])).toEqual({
        targets: [],
        to_caller: false,
      });
    });
  });

  describe(canReach.name, () => {
    const none = () => false;
    const diamond: GraphDefinition = {
      entry_node: 'a',
      edges: [edge('a', 'b'), edge('a', 'c'), edge('b', 'join'), edge('c', 'e'), edge('e', 'join'), edge('join', 'a')],
    };

    it('follows edges, cycles included', () => {
      expect(canReach(diamond, 'c', 'join', none)).toBe(true);
      expect(canReach(diamond, 'b', 'e', none)).toBe(true);
      expect(canReach({ ...diamond, edges: diamond.edges.slice(0, -1) }, 'b', 'e', none)).toBe(false);
    });

    it('goes from a tool executor back to the agents that hand it calls', () => {
      const agentLoop: GraphDefinition = { entry_node: 'a', edges: [edge('agent', 'tools'), edge('agent', 'join')] };
      expect(canReach(agentLoop, 'tools', 'join', (uuid) => uuid === 'tools')).toBe(true);
      expect(canReach(agentLoop, 'tools', 'join', none)).toBe(false);
    });
  });
});
