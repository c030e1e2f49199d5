import type { EdgeDefinition, GraphDefinition, StepDefinition } from '@app/contracts';
import { ErrorCode } from '../errors';
import { stepChainIssues } from '../definition/chain';
import { fieldPath, throwIssues, type Issue } from '../definition/issues';
import { schemaIssues } from '../definition/json-schema';
import { GRAPH_SCHEMA } from './graph-schema';
import { graphIssues } from './graph-issues';

export { graphAsChain } from './chain-graph';

type NewUuid = () => string;

/** A graph body (null for none), uuids lower-cased and given where absent; shape problems only. */
export function parseGraph(input: unknown, field: string, newUuid: NewUuid): GraphDefinition | null {
  if (input === undefined || input === null) return null;
  throwIssues(schemaIssues(GRAPH_SCHEMA, input, field));
  const body = input as {
    entry_node: string;
    edges: Record<string, unknown>[];
    is_conversational?: boolean;
    max_steps?: number;
    timeout_seconds?: number;
    idle_timeout_seconds?: number;
    human_handoff_step_uuid?: string;
  };
  return {
    entry_node: body.entry_node.toLowerCase(),
    ...(body.max_steps !== undefined ? { max_steps: body.max_steps } : {}),
    ...(body.timeout_seconds !== undefined ? { timeout_seconds: body.timeout_seconds } : {}),
    ...(body.idle_timeout_seconds !== undefined ? { idle_timeout_seconds: body.idle_timeout_seconds } : {}),
    ...(body.human_handoff_step_uuid !== undefined ? { human_handoff_step_uuid: body.human_handoff_step_uuid.toLowerCase() } : {}),
    ...(body.is_conversational ? { is_conversational: true } : {}),
    edges: body.edges.map((edge): EdgeDefinition => ({
      uuid: typeof edge.uuid === 'string' ? edge.uuid.toLowerCase() : newUuid(),
      source_step_uuid: (edge.source_step_uuid as string).toLowerCase(),
      target_step_uuid: typeof edge.target_step_uuid === 'string' ? edge.target_step_uuid.toLowerCase() : null,
      condition_type: edge.condition_type as EdgeDefinition['condition_type'],
      condition_value: (edge.condition_value as string | null | undefined) ?? null,
      ...(edge.conditions ? { conditions: edge.conditions as EdgeDefinition['conditions'] } : {}),
      ...(typeof edge.priority === 'number' ? { priority: edge.priority } : {}),
    })),
  };
}

/**
 * Every rule across a workflow's steps and graph. A chain's references must point backwards; in a graph a
 * step may read any step's latest output (cycles run steps many times), and tool executors need a graph.
 */
export function definitionIssues(
  steps: readonly StepDefinition[],
  graph: GraphDefinition | null | undefined,
  stepsField = 'steps',
  graphField = 'graph',
): Issue[] {
  if (graph) return [...stepChainIssues(steps, stepsField, { ordered: false }), ...graphIssues(steps, graph, graphField, stepsField)];
  const issues = stepChainIssues(steps, stepsField);
  steps.forEach((step, i) => {
    if (step.join === 'all') {
      const at = fieldPath(stepsField, `[${i}].join`);
      issues.push({ code: ErrorCode.InvalidJoin, field: at, message: `${at} "all" waits for a graph's branches: a chain has none` });
    }
    if (step.type !== 'tool_executor') return;
    const at = fieldPath(stepsField, `[${i}].type`);
    issues.push({ code: ErrorCode.InvalidEdge, field: at, message: `${at} tool_executor steps run only in graph workflows: add a graph` });
  });
  return issues;
}

export function validateDefinition(steps: readonly StepDefinition[], graph: GraphDefinition | null | undefined): void {
  throwIssues(definitionIssues(steps, graph));
}
