import { randomBytes, randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { WorkflowDefinition } from '@app/contracts';
import { notFound, parseGraph, validateDefinition, parseWorkflowDocument, parseWorkflowInput, parseWorkflowPatch, toWorkflowDocument, type WorkflowInput } from '@app/domain';
import { definitionOf, type Page } from '@app/persistence';
import { nameBasedUuid } from '../common/name-uuid';
import type { Pagination } from '../common/pagination';
import { schedulesRun, SchedulesService } from '../schedules/schedules.service';
import { DefinitionStore } from './definition-store.service';
import { toDetailsView, toWorkflowView, type WorkflowDetailsView, type WorkflowView } from './workflow.views';

/** Signs the workflow's run-end notifications; its owner sees it to check signatures. */
const newNotifySecret = (): string => `nsec_${randomBytes(24).toString('base64url')}`;

function newUuidsOf(input: WorkflowInput, prefix: string, withWorkflow: boolean): { uuid: string; field: string }[] {
  return [
    ...(withWorkflow && input.uuid ? [{ uuid: input.uuid, field: `${prefix}uuid` }] : []),
    ...input.steps.map((step, i) => ({ uuid: step.uuid, field: `${prefix}steps[${i}].uuid` })),
    ...(input.trigger ? [{ uuid: input.trigger.uuid, field: `${prefix}trigger.uuid` }] : []),
  ];
}

@Injectable()
export class WorkflowsService {
  constructor(
    private readonly store: DefinitionStore,
    private readonly schedules: SchedulesService,
  ) {}

  async create(userId: string, body: unknown): Promise<WorkflowDetailsView> {
    const input = parseWorkflowInput(body, randomUUID);
    await this.store.assertUuidsFree(newUuidsOf(input, '', true));
    return toDetailsView(await this.store.create(userId, { ...input, uuid: input.uuid ?? randomUUID() }, newNotifySecret()));
  }

  async list(userId: string, page: Pagination): Promise<Page<WorkflowView>> {
    const result = await this.store.workflows.list(userId, page.limit, page.offset);
    return { ...result, items: result.items.map(({ trigger_uuid, ...item }) => ({ ...item, trigger_uuid })) };
  }

  async get(userId: string, uuid: string): Promise<WorkflowView> {
    return toWorkflowView(await this.store.get(userId, uuid));
  }

  async details(userId: string, uuid: string): Promise<WorkflowDetailsView> {
    return toDetailsView(await this.store.get(userId, uuid));
  }

  async update(userId: string, uuid: string, body: unknown): Promise<WorkflowView> {
    const patch = parseWorkflowPatch(body);
    const updated = await this.store.edit(userId, uuid, (current) => ({ ...current, ...patch }));
    // A workflow that is inactive, paused or archived keeps its schedules, paused; making it active resumes them.
    if (patch.is_active !== undefined || patch.status !== undefined) await this.schedules.setPausedForWorkflow(userId, uuid, !schedulesRun(updated));
    return toWorkflowView(updated);
  }

  async remove(userId: string, uuid: string): Promise<void> {
    await this.store.get(userId, uuid);
    await this.schedules.removeForWorkflow(userId, uuid);
    if (!(await this.store.workflows.delete(userId, uuid))) throw notFound('Workflow', uuid);
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

  /** With a uuid of one of the user's workflows: replaces it whole. Otherwise: creates it. */
  async import(userId: string, body: unknown): Promise<{ created: boolean; workflow: WorkflowDetailsView }> {
    const input = parseWorkflowDocument(body, randomUUID);
    const existing = input.uuid ? await this.store.workflows.find(userId, input.uuid) : null;
    if (!existing) {
      await this.store.assertUuidsFree(newUuidsOf(input, 'workflow.', true));
      const created = await this.store.create(userId, { ...input, uuid: input.uuid ?? randomUUID() }, newNotifySecret());
      return { created: true, workflow: toDetailsView(created) };
    }
    const kept = new Set([...existing.steps.map((s) => s.uuid), existing.trigger?.uuid]);
    await this.store.assertUuidsFree(newUuidsOf(input, 'workflow.', false).filter(({ uuid }) => !kept.has(uuid)));
    const replacement: WorkflowDefinition = { ...input, uuid: existing.uuid };
    return { created: false, workflow: toDetailsView(await this.store.edit(userId, existing.uuid, () => replacement)) };
  }
}
