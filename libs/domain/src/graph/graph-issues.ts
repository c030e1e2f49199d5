// Rules of a graph over a workflow's steps: edges between existing steps, END edges without a
// target, one route per choice, one fallback after a tool executor, joins where branches meet, every step
// reachable from the entry.
import { END, type GraphDefinition, type StepDefinition } from '@app/contracts';
import { ruleIssues } from '../conditions';
import { ErrorCode } from '../errors';
import { fieldPath, type Issue } from '../definition/issues';

const TOOL_EXECUTOR_CHOICE = 'tool_executor';

/** The steps reachable from `entry` along the edges. */
export function reachableFrom(entry: string, graph: GraphDefinition): Set<string> {
  const seen = new Set<string>([entry]);
  const queue = [entry];
  while (queue.length) {
    const from = queue.shift()!;
    for (const edge of graph.edges) {
      if (edge.source_step_uuid !== from || edge.target_step_uuid === null || seen.has(edge.target_step_uuid)) continue;
      seen.add(edge.target_step_uuid);
      queue.push(edge.target_step_uuid);
    }
  }
  return seen;
}

/** Every problem of `graph` over `steps`; `field` is where the graph sits in the request body. */
export function graphIssues(steps: readonly StepDefinition[], graph: GraphDefinition, field = 'graph', stepsField = 'steps'): Issue[] {
  const issues: Issue[] = [];
  const issue = (code: ErrorCode, at: string, message: string) => issues.push({ code, field: at, message: `${at} ${message}` });
  const byUuid = new Map(steps.map((step) => [step.uuid, step]));
  if (!byUuid.has(graph.entry_node))
    issue(ErrorCode.UnknownGraphNode, fieldPath(field, 'entry_node'), `names step ${graph.entry_node}, which is not in this workflow`);
  const handoff = graph.human_handoff_step_uuid;
  if (handoff !== undefined && byUuid.get(handoff)?.type !== 'human_input') {
    issue(
      ErrorCode.UnknownGraphNode,
      fieldPath(field, 'human_handoff_step_uuid'),
      `must name a human_input step of this workflow: ${handoff}`,
    );
  }

  const edgeUuids = new Map<string, number>();
  const routes = new Map<string, number>();
  const fallbacks = new Map<string, number>();
  graph.edges.forEach((edge, i) => {
    const at = (name: string) => fieldPath(field, `edges[${i}]${name ? `.${name}` : ''}`);
    if (edgeUuids.has(edge.uuid)) issue(ErrorCode.DuplicateEdge, at('uuid'), `repeats the uuid of edges[${edgeUuids.get(edge.uuid)}]`);
    else edgeUuids.set(edge.uuid, i);
    const source = byUuid.get(edge.source_step_uuid);
    if (!source)
      issue(ErrorCode.UnknownGraphNode, at('source_step_uuid'), `names step ${edge.source_step_uuid}, which is not in this workflow`);
    if (edge.target_step_uuid !== null && !byUuid.has(edge.target_step_uuid)) {
      issue(ErrorCode.UnknownGraphNode, at('target_step_uuid'), `names step ${edge.target_step_uuid}, which is not in this workflow`);
    }
    if (edge.condition_value === END && edge.target_step_uuid !== null)
      issue(ErrorCode.InvalidEdge, at('target_step_uuid'), 'must be null on an END edge');
    if (edge.condition_type === 'ALWAYS' && edge.condition_value !== null)
      issue(ErrorCode.InvalidEdge, at('condition_value'), 'must be null on an ALWAYS edge');
    if (edge.condition_type === 'CONDITIONAL' && edge.condition_value === null && !edge.conditions) {
      issue(ErrorCode.InvalidEdge, at('condition_value'), 'is required on a CONDITIONAL edge without data conditions');
    }
    if (edge.conditions) issues.push(...ruleIssues(edge.conditions, at('conditions')));
    if (edge.condition_type === 'CONDITIONAL' && edge.condition_value !== null) {
      const key = `${edge.source_step_uuid}\u0000${edge.condition_value.toLowerCase()}`;
      if (routes.has(key))
        issue(
          ErrorCode.DuplicateRoute,
          at('condition_value'),
          `"${edge.condition_value}" already routes edges[${routes.get(key)}] from the same step`,
        );
      else routes.set(key, i);
    }
    if (source?.type === 'tool_executor' && edge.condition_type === 'ALWAYS') {
      if (fallbacks.has(source.uuid))
        issue(
          ErrorCode.DuplicateRoute,
          at('condition_type'),
          `is a second ALWAYS edge from tool executor "${source.name}" (edges[${fallbacks.get(source.uuid)}])`,
        );
      else fallbacks.set(source.uuid, i);
    }
    // An agent hands its tool calls to a tool executor only along an edge that reaches one.
    const target = edge.target_step_uuid === null ? undefined : byUuid.get(edge.target_step_uuid);
    const routesToTools = source?.type === 'custom_agent' && edge.condition_value === TOOL_EXECUTOR_CHOICE;
    if (routesToTools && (edge.target_step_uuid === null || (target && target.type !== 'tool_executor'))) {
      issue(
        ErrorCode.InvalidEdge,
        at('target_step_uuid'),
        `routes "${TOOL_EXECUTOR_CHOICE}" to ${target ? `"${target.name}"` : 'no step'}, which is not a tool executor`,
      );
    }
    // Only an agent's tool calls activate a tool executor: an edge from anything else would reach it with none.
    if (target?.type === 'tool_executor' && source && source.type !== 'custom_agent') {
      issue(
        ErrorCode.InvalidEdge,
        at('source_step_uuid'),
        `is "${source.name}", a ${source.type}: only agents hand tool calls to tool executor "${target.name}"`,
      );
    }
  });

  steps.forEach((step, i) => {
    if (step.join !== 'all') return;
    const sources = new Set(graph.edges.filter((edge) => edge.target_step_uuid === step.uuid).map((edge) => edge.source_step_uuid));
    if (sources.size < 2)
      issue(ErrorCode.InvalidJoin, fieldPath(stepsField, `[${i}].join`), `"all" needs edges from two steps or more into "${step.name}"`);
  });

  if (byUuid.has(graph.entry_node)) {
    // The hand-off step is reached by a guard rail, and what follows it from there.
    const reached = new Set([
      ...reachableFrom(graph.entry_node, graph),
      ...(handoff && byUuid.has(handoff) ? reachableFrom(handoff, graph) : []),
    ]);
    steps.forEach((step, i) => {
      if (!reached.has(step.uuid))
        issue(ErrorCode.UnreachableStep, fieldPath(stepsField, `[${i}]`), `("${step.name}") cannot be reached from the entry node`);
    });
  }
  return issues;
}
