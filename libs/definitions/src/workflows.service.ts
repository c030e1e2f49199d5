import { randomBytes, randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { CustomAgentStep, WorkflowDefinition } from '@app/contracts';
import {
  fromAgenticDocument,
  isAgenticDocument,
  isUuid,
  nameBasedUuid,
  notFound,
  parseGraph,
  parseWorkflowDocument,
  parseWorkflowInput,
  toAgenticDocument,
  toWorkflowDocument,
  validateDefinition,
  type AgenticDocument,
  type AgenticEdge,
  type AgenticNode,
  type WorkflowInput,
} from '@app/domain';
import { definitionOf, type Page, type PageRequest, type VersionNote } from '@app/persistence';
import { AppConfig } from '@app/config';
import { SecretBox } from '@app/security';
import { EgressGuard } from './egress-guard';
import { DefinitionStore } from './definition-store.service';
import { StepSummaries } from './step-summaries.service';
import { toDetailsView, toWorkflowView, type WorkflowDetailsView, type WorkflowView } from './workflow.views';

/**
 * Sees the workflow an import is about to replace (null: there is none, it would be created) and its
 * replacement, under the save's row lock, and may refuse the save by throwing: the assistant's check that
 * nobody edited the workflow since its generation read it.
 */
export type ReplaceGuard = (current: WorkflowDefinition | null, replacement: WorkflowDefinition) => void;

/** Signs the workflow's run-end notifications (Standard Webhooks' `whsec_` form); its owner sees it once, to check signatures. */
const newNotifySecret = (): string => `whsec_${randomBytes(24).toString('base64')}`;

function newUuidsOf(input: WorkflowInput, prefix: string, withWorkflow: boolean): { uuid: string; field: string }[] {
  return [
    ...(withWorkflow && input.uuid ? [{ uuid: input.uuid, field: `${prefix}uuid` }] : []),
    ...input.steps.map((step, i) => ({ uuid: step.uuid, field: `${prefix}steps[${i}].uuid` })),
    ...(input.trigger ? [{ uuid: input.trigger.uuid, field: `${prefix}trigger.uuid` }] : []),
  ];
}

/**
 * A user's workflows as REST, the MCP server and the assistant save and read them, each save through the same
 * checks. A patch and a delete, which the workflow's schedules follow, are the API's (WorkflowChanges).
 */
@Injectable()
export class WorkflowsService {
  constructor(
    private readonly store: DefinitionStore,
    private readonly summaries: StepSummaries,
    private readonly egress: EgressGuard,
    private readonly secrets: SecretBox,
    private readonly config: AppConfig,
  ) {}

  async create(userId: string, body: unknown): Promise<WorkflowDetailsView> {
    const input = parseWorkflowInput(body, randomUUID, '', this.config.limits.schema);
    await this.egress.assertReachable(input.notify_url, 'notify_url');
    await this.store.assertUuidsFree(userId, newUuidsOf(input, '', true));
    const secret = newNotifySecret();
    return {
      ...toDetailsView(await this.store.create(userId, { ...input, uuid: input.uuid ?? randomUUID() }, this.secrets.seal(secret))),
      notify_secret: secret,
    };
  }

  /** A new secret for the workflow's notifications, shown this once; the previous one stops at once. */
  async rotateNotifySecret(userId: string, uuid: string): Promise<{ workflow_uuid: string; notify_secret: string }> {
    const secret = newNotifySecret();
    if (!(await this.store.workflows.setNotifySecret(userId, uuid, this.secrets.seal(secret)))) throw notFound('Workflow', uuid);
    return { workflow_uuid: uuid, notify_secret: secret };
  }

  async list(userId: string, page: PageRequest): Promise<Page<WorkflowView>> {
    const result = await this.store.workflows.list(userId, page);
    return { ...result, items: result.items.map(({ trigger_uuid, notify_secret: _secret, ...item }) => ({ ...item, trigger_uuid })) };
  }

  async get(userId: string, uuid: string): Promise<WorkflowView> {
    return toWorkflowView(await this.store.get(userId, uuid));
  }

  /** With each LLM and agent step's generated_summary and its status. */
  async details(userId: string, uuid: string): Promise<WorkflowDetailsView> {
    const view = toDetailsView(await this.store.get(userId, uuid));
    return { ...view, steps: await this.summaries.shown(view.steps) };
  }

  async export(userId: string, uuid: string): Promise<ReturnType<typeof toWorkflowDocument>> {
    const record = await this.store.get(userId, uuid);
    return toWorkflowDocument(definitionOf(record), (stepUuid) => nameBasedUuid('chain-edge', stepUuid), record.tool_manifest);
  }

  /** PUT /workflows/{uuid}/graph sets the graph whole; DELETE (null) makes the workflow the chain of its steps in order. */
  async setGraph(userId: string, uuid: string, body: unknown | null): Promise<WorkflowDetailsView> {
    const graph = body === null ? null : parseGraph(body ?? {}, '', randomUUID);
    return toDetailsView(
      await this.store.edit(userId, uuid, (current) => {
        validateDefinition(current.steps, graph);
        return { ...current, graph };
      }),
    );
  }

  /** GET /workflows/{uuid}/export?format=agentic: the agentic document format, for graph workflows. */
  async exportAgentic(userId: string, uuid: string): Promise<AgenticDocument> {
    return toAgenticDocument(definitionOf(await this.store.get(userId, uuid)));
  }

  /**
   * Our document (`{format, workflow}`) or an agentic document (`nodes`, `edges`, `entrypointNodeId`). With a uuid of
   * one of the user's workflows: replaces it whole. Otherwise: creates it. `guard` may refuse either; `note`
   * goes on the version the save makes.
   */
  async import(
    userId: string,
    body: unknown,
    guard?: ReplaceGuard,
    note?: VersionNote,
  ): Promise<{ created: boolean; workflow: WorkflowDetailsView }> {
    const input = isAgenticDocument(body)
      ? parseWorkflowInput(await this.fromAgentic(userId, body as object), randomUUID, '', this.config.limits.schema)
      : parseWorkflowDocument(body, randomUUID, this.config.limits.schema);
    await this.egress.assertReachable(input.notify_url, 'workflow.notify_url');
    const existing = input.uuid ? await this.store.workflows.find(userId, input.uuid) : null;
    if (!existing) {
      const definition = { ...input, uuid: input.uuid ?? randomUUID() };
      guard?.(null, definition);
      await this.store.assertUuidsFree(userId, newUuidsOf(input, 'workflow.', true));
      const secret = newNotifySecret();
      const created = await this.store.create(userId, definition, this.secrets.seal(secret), note);
      return { created: true, workflow: { ...toDetailsView(created), notify_secret: secret } };
    }
    const kept = new Set([...existing.steps.map((s) => s.uuid), existing.trigger?.uuid]);
    await this.store.assertUuidsFree(
      userId,
      newUuidsOf(input, 'workflow.', false).filter(({ uuid }) => !kept.has(uuid)),
    );
    const replacement: WorkflowDefinition = { ...input, uuid: existing.uuid };
    const replace = (current: WorkflowDefinition) => {
      guard?.(current, replacement);
      return replacement;
    };
    return { created: false, workflow: toDetailsView(await this.store.edit(userId, existing.uuid, replace, note)) };
  }

  /**
   * An agentic document as a workflow body: its AGENT nodes copy the user's agent steps their agentIds name
   * (nodes its edges use without listing: the agent step its CONDITIONAL edges name); ids that are not uuids
   * ("node-uuid-1") get name-based ones, so importing the same document again replaces the workflow it created.
   */
  private async fromAgentic(userId: string, document: object): Promise<Record<string, unknown>> {
    const { id, nodes, edges } = document as { id?: unknown; nodes?: Partial<AgenticNode>[]; edges?: Partial<AgenticEdge>[] };
    const uuidFor = (kind: 'workflow' | 'node' | 'edge', documentId: string) =>
      isUuid(documentId) ? documentId.toLowerCase() : nameBasedUuid(userId, 'agentic', String(id), kind, documentId);
    const listed = Array.isArray(nodes) ? nodes : [];
    const agentIds = listed
      .map((node) => node?.agentId)
      .filter((agentId): agentId is string => typeof agentId === 'string' && isUuid(agentId));
    const found = await this.store.workflows.findSteps(userId, { uuids: [...new Set(agentIds.map((agentId) => agentId.toLowerCase()))] });
    const agents = new Map(found.flatMap(({ step }) => (step.type === 'custom_agent' ? [[step.uuid, step] as const] : [])));
    const agentsByName = await this.agentStepsNamedIn(userId, listed, edges, typeof id === 'string' ? uuidFor('workflow', id) : null);
    return fromAgenticDocument(document, {
      uuidFor,
      agentStep: (agentId) => agents.get(agentId.toLowerCase()) ?? null,
      agentStepsNamed: (name) => agentsByName.filter((agent) => agent.name === name),
    });
  }

  /**
   * The user's agent steps named by the conditionValue of an edge into a node `nodes` does not list (the
   * names the import may infer nodes from), leaving out those of the workflow the import replaces: they are
   * its last import's copies, about to go.
   */
  private async agentStepsNamedIn(
    userId: string,
    nodes: Partial<AgenticNode>[],
    edges: unknown,
    replacedUuid: string | null,
  ): Promise<CustomAgentStep[]> {
    const listed = new Set(nodes.map((node) => node?.id));
    const intoUnlisted = Array.isArray(edges)
      ? (edges as Partial<AgenticEdge>[]).filter((edge) => typeof edge?.targetNodeId === 'string' && !listed.has(edge.targetNodeId))
      : [];
    const names = [
      ...new Set(intoUnlisted.map((edge) => edge.conditionValue).filter((value): value is string => typeof value === 'string')),
    ];
    const found = await this.store.workflows.findSteps(userId, { names });
    return found.flatMap(({ workflow_uuid, step }) => (step.type === 'custom_agent' && workflow_uuid !== replacedUuid ? [step] : []));
  }
}
