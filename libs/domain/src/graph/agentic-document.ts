// The agentic document format (a declarative graph document): camelCase keys, `nodes` and `edges`, AGENT nodes
// naming existing agent steps by `agentId`, TOOL_EXECUTOR nodes, `entrypointNodeId`. Imported into our
// definition shape (then validated like any other workflow) and exported back from it.
import type { CustomAgentStep, EdgeDefinition, StepDefinition, WorkflowDefinition } from '@app/contracts';
import { DomainError, ErrorCode } from '../errors';
import { isJsonObject } from '../json-object';
import { throwIssues, type Issue } from '../definition/issues';
import { schemaIssues } from '../definition/json-schema';
import { canonicalJson } from '../tools/tool-manifest';

export interface AgenticNode {
  id: string;
  nodeType: 'AGENT' | 'TOOL_EXECUTOR';
  nodeName: string;
  agentId: string | null;
  workflowId?: string;
}

export interface AgenticEdge {
  id: string;
  sourceNodeId: string;
  targetNodeId: string | null;
  conditionType: 'ALWAYS' | 'CONDITIONAL';
  conditionValue: string | null;
  workflowId?: string;
}

export interface AgenticDocument {
  id: string;
  name: string;
  description?: string;
  isConversational?: boolean;
  entrypointNodeId: string;
  nodes: AgenticNode[];
  edges: AgenticEdge[];
}

const id = { type: 'string', minLength: 1, maxLength: 200 };
const AGENTIC_SCHEMA = {
  type: 'object',
  required: ['id', 'name', 'entrypointNodeId', 'nodes', 'edges'],
  properties: {
    id,
    name: { type: 'string', minLength: 1, maxLength: 200 },
    description: { type: 'string' },
    isConversational: { type: 'boolean' },
    entrypointNodeId: id,
    nodes: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'nodeType', 'nodeName'],
        properties: {
          id,
          nodeType: { enum: ['AGENT', 'TOOL_EXECUTOR'] },
          nodeName: { type: 'string', minLength: 1, maxLength: 200 },
          agentId: { type: ['string', 'null'] },
        },
      },
    },
    edges: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'sourceNodeId', 'conditionType'],
        properties: {
          id,
          sourceNodeId: id,
          targetNodeId: { type: ['string', 'null'] },
          conditionType: { enum: ['ALWAYS', 'CONDITIONAL'] },
          conditionValue: { type: ['string', 'null'] },
        },
      },
    },
  },
};

/** A document in the agentic format rather than ours (`{format, workflow}`). */
export function isAgenticDocument(input: unknown): boolean {
  return isJsonObject(input) && 'nodes' in input && 'entrypointNodeId' in input;
}

/** What an import needs besides the document: our uuid for one of its ids, and the agent steps its AGENT nodes name. */
export interface AgenticImportContext {
  uuidFor: (kind: 'workflow' | 'node' | 'edge', documentId: string) => string;
  agentStep: (agentId: string) => CustomAgentStep | null;
  /** The user's agent steps (custom_agent) with this name, for nodes the edges use but `nodes` leaves out. */
  agentStepsNamed: (name: string) => CustomAgentStep[];
}

/** An AGENT node the document's edges imply, or why none could be. */
type Inferred = { node: AgenticNode; agent: CustomAgentStep } | { reason: string };

/**
 * The agentic format routes by agent name: a CONDITIONAL edge from an AGENT node carries the name of the agent it goes
 * to (from a TOOL_EXECUTOR the value is a tool name instead). So an id the edges use without `nodes` listing
 * it is the agent such edges name, if they agree on one name and exactly one of the user's agents has it.
 */
function inferNode(document: AgenticDocument, nodeId: string, context: AgenticImportContext): Inferred {
  const agentNodes = new Set(document.nodes.filter((node) => node.nodeType === 'AGENT').map((node) => node.id));
  const naming = document.edges.filter(
    (edge) => edge.targetNodeId === nodeId && edge.conditionType === 'CONDITIONAL' && agentNodes.has(edge.sourceNodeId),
  );
  const names = [...new Set(naming.map((edge) => edge.conditionValue).filter((value): value is string => !!value))];
  if (names.length !== 1) {
    return {
      reason: names.length
        ? `the CONDITIONAL edges to it name several agents (${names.join(', ')})`
        : 'no CONDITIONAL edge from an AGENT node names it',
    };
  }
  const [name] = names;
  // Copies of one agent (an earlier import's node is one) are the same agent: only differing ones are ambiguous.
  const distinct = new Map(context.agentStepsNamed(name).map((agent) => [canonicalJson({ ...agent, uuid: null }), agent]));
  if (distinct.size !== 1) return { reason: `${distinct.size ? 'several' : 'none'} of your agent steps (custom_agent) are named ${name}` };
  return { node: { id: nodeId, nodeType: 'AGENT', nodeName: name, agentId: null }, agent: [...distinct.values()][0] };
}

/** The ids the edges and entry point use that `nodes` does not list, in order of first use. */
function unlistedNodeIds(document: AgenticDocument): string[] {
  const listed = new Set(document.nodes.map((node) => node.id));
  const used = [document.entrypointNodeId, ...document.edges.flatMap((edge) => [edge.sourceNodeId, edge.targetNodeId])];
  return [...new Set(used.filter((nodeId): nodeId is string => nodeId !== null && nodeId !== undefined && !listed.has(nodeId)))];
}

/** The body of a workflow in our shape, to be parsed and validated like any other. */
export function fromAgenticDocument(input: unknown, context: AgenticImportContext): Record<string, unknown> {
  throwIssues(schemaIssues(AGENTIC_SCHEMA, input, ''));
  const document = input as AgenticDocument;
  const issues: Issue[] = [];
  const inferred = new Map(unlistedNodeIds(document).map((nodeId) => [nodeId, inferNode(document, nodeId, context)]));
  const inferredSteps = [...inferred.values()].flatMap((result) => ('node' in result ? [result] : []));
  const nodes = [...document.nodes, ...inferredSteps.map(({ node }) => node)];
  const nodeUuid = new Map(nodes.map((node) => [node.id, context.uuidFor('node', node.id)]));
  const listedSteps = document.nodes.map((node, i): StepDefinition | null => {
    const uuid = nodeUuid.get(node.id)!;
    if (node.nodeType === 'TOOL_EXECUTOR') return { uuid, type: 'tool_executor', name: node.nodeName, description: '' };
    const agent = node.agentId ? context.agentStep(node.agentId) : null;
    if (!agent) {
      issues.push({
        code: ErrorCode.UnknownGraphNode,
        field: `nodes[${i}].agentId`,
        message: `nodes[${i}].agentId must name one of your agent steps (custom_agent): ${node.agentId ?? 'null'}`,
      });
      return null;
    }
    return { ...agent, uuid, name: node.nodeName };
  });
  const steps = [
    ...listedSteps,
    ...inferredSteps.map(({ node, agent }) => ({ ...agent, uuid: nodeUuid.get(node.id)!, name: node.nodeName })),
  ];
  const endpoint = (nodeId: string | null, field: string): string | null => {
    if (nodeId === null) return null;
    const uuid = nodeUuid.get(nodeId);
    const why = inferred.get(nodeId);
    if (!uuid)
      issues.push({
        code: ErrorCode.UnknownGraphNode,
        field,
        message: `${field} names node ${nodeId}, which is not in nodes${why && 'reason' in why ? `, and ${why.reason}` : ''}`,
      });
    return uuid ?? null;
  };
  const edges = document.edges.map((edge, i) => ({
    uuid: context.uuidFor('edge', edge.id),
    source_step_uuid: endpoint(edge.sourceNodeId, `edges[${i}].sourceNodeId`),
    target_step_uuid: endpoint(edge.targetNodeId ?? null, `edges[${i}].targetNodeId`),
    condition_type: edge.conditionType,
    condition_value: edge.conditionType === 'ALWAYS' ? null : (edge.conditionValue ?? null),
  }));
  const entry = endpoint(document.entrypointNodeId, 'entrypointNodeId');
  throwIssues(issues);
  return {
    uuid: context.uuidFor('workflow', document.id),
    name: document.name,
    description: document.description ?? '',
    steps,
    graph: { entry_node: entry, edges, ...(document.isConversational ? { is_conversational: true } : {}) },
  };
}

/** Our definition in the agentic format; AGENT nodes name their own step as `agentId`. */
export function toAgenticDocument(definition: WorkflowDefinition): AgenticDocument {
  if (!definition.graph)
    throw new DomainError(ErrorCode.ValidationFailed, 'Only graph workflows export as agentic documents', { field: 'format' });
  // The agentic format knows agents and tool executors only: anything else would come back as an agent that is not one.
  const other = definition.steps.find((step) => step.type !== 'custom_agent' && step.type !== 'tool_executor');
  if (other) {
    throw new DomainError(
      ErrorCode.ValidationFailed,
      `Agentic documents hold agents and tool executors only: step "${other.name}" is a ${other.type}`,
      { field: 'format', step_uuid: other.uuid },
    );
  }
  const graph = definition.graph;
  return {
    id: definition.uuid,
    name: definition.name,
    description: definition.description,
    isConversational: graph.is_conversational ?? false,
    entrypointNodeId: graph.entry_node,
    nodes: definition.steps.map((step) => ({
      id: step.uuid,
      workflowId: definition.uuid,
      nodeType: step.type === 'tool_executor' ? 'TOOL_EXECUTOR' : 'AGENT',
      nodeName: step.name,
      agentId: step.type === 'tool_executor' ? null : step.uuid,
    })),
    edges: graph.edges.map((edge: EdgeDefinition) => ({
      id: edge.uuid,
      workflowId: definition.uuid,
      sourceNodeId: edge.source_step_uuid,
      targetNodeId: edge.target_step_uuid,
      conditionType: edge.condition_type,
      conditionValue: edge.condition_value,
    })),
  };
}
