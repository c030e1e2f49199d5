import { isDeepStrictEqual } from 'node:util';
import type { StepDefinition, TriggerDefinition, WorkflowDefinition } from '@app/contracts';
import { DomainError, ErrorCode, type SavedToolManifest } from '@app/domain';
import { In, type DataSource, type EntityManager } from 'typeorm';
import { TriggerEntity, WorkflowEntity, WorkflowStepEntity } from './definition.entities';
import { toStep, toStepRow, toTriggerRow, toWorkflowRecord, toWorkflowRow } from './workflow.mapper';
import { pageOf } from '../pages';
import {
  definitionOf,
  WorkflowRepository,
  type ManifestOf,
  type Page,
  type PageRequest,
  type WorkflowRecord,
  type WorkflowSummary,
} from './workflow.repository';
import { isDuplicateKey } from '../rolled-back';
import { claimantOf, claimsOf, claimUuids } from './uuid-claims';
import { appendVersion, type VersionNote } from './workflow-version.repository';

/**
 * The service checks uuids are free before writing, but two requests can race to the same uuid: the
 * primary key then refuses the second, which is a conflict like the checked case, not a server fault.
 */
function conflictOnDuplicate(error: unknown): never {
  if (isDuplicateKey(error)) {
    throw new DomainError(ErrorCode.Conflict, 'A workflow, step or trigger with one of these uuids was created meanwhile', {});
  }
  throw error;
}

/** An edit whose workflow another save changed between its read and its write: it is computed again. */
const CHANGED_MEANWHILE = Symbol('changed meanwhile');
/** Each lost race means another save went through; this many in a row is a workflow edited non-stop. */
const MAX_EDIT_ATTEMPTS = 20;

export class TypeormWorkflowRepository extends WorkflowRepository {
  /** `versionsKept`: the latest versions of a workflow that stay (WORKFLOW_VERSIONS_KEPT). */
  constructor(
    private readonly dataSource: DataSource,
    private readonly versionsKept = Number.MAX_SAFE_INTEGER,
  ) {
    super();
  }

  async list(userId: string, request: PageRequest): Promise<Page<WorkflowSummary>> {
    const query = this.dataSource.getRepository(WorkflowEntity).createQueryBuilder('row').where('row.user_id = :userId', { userId });
    const page = await pageOf(query, 'created_at', request);
    return {
      ...page,
      items: page.items.map(({ output_history_size, input_schema, budget, ...row }) => ({
        ...row,
        ...(output_history_size !== null ? { output_history_size } : {}),
        ...(input_schema !== null ? { input_schema } : {}),
        ...(budget !== null ? { budget } : {}),
      })),
    };
  }

  /**
   * The row, its steps and its trigger read at once (one round trip's wait, not two). A save between the reads
   * shows as steps other than those the row lists: then all is read again in one snapshot.
   */
  async find(userId: string, uuid: string): Promise<WorkflowRecord | null> {
    const manager = this.dataSource.manager;
    const [workflow, steps, trigger] = await Promise.all([
      manager.findOneBy(WorkflowEntity, { uuid, user_id: userId }),
      manager.findBy(WorkflowStepEntity, { workflow_uuid: uuid, user_id: userId }),
      manager.findOneBy(TriggerEntity, { workflow_uuid: uuid, user_id: userId }),
    ]);
    if (!workflow) return null;
    const read = new Set(steps.map((step) => step.uuid));
    if (steps.length !== workflow.steps.length || !workflow.steps.every((step) => read.has(step)))
      return this.dataSource.transaction((snapshot) => this.load(snapshot, userId, uuid, false));
    return toWorkflowRecord(workflow, steps, trigger);
  }

  async findWorkflowOfStep(userId: string, stepUuid: string): Promise<string | null> {
    const step = await this.dataSource.getRepository(WorkflowStepEntity).findOneBy({ uuid: stepUuid, user_id: userId });
    return step?.workflow_uuid ?? null;
  }

  async findSteps(
    userId: string,
    by: { uuids: string[] } | { names: string[] },
  ): Promise<{ workflow_uuid: string; step: StepDefinition }[]> {
    const [column, values] = 'uuids' in by ? (['uuid', by.uuids] as const) : (['name', by.names] as const);
    if (!values.length) return [];
    const rows = await this.dataSource.getRepository(WorkflowStepEntity).findBy({ user_id: userId, [column]: In(values) });
    return rows.map((row) => ({ workflow_uuid: row.workflow_uuid, step: toStep(row) }));
  }

  async findWorkflowOfTrigger(userId: string, triggerUuid: string): Promise<string | null> {
    const trigger = await this.dataSource.getRepository(TriggerEntity).findOneBy({ uuid: triggerUuid, user_id: userId });
    return trigger?.workflow_uuid ?? null;
  }

  claimantOf(uuid: string): Promise<string | null> {
    return claimantOf(this.dataSource.manager, uuid);
  }

  async ownerOfUuid(uuid: string): Promise<string | null> {
    for (const entity of [WorkflowEntity, WorkflowStepEntity, TriggerEntity]) {
      const row = await this.dataSource.getRepository(entity).findOne({ where: { uuid }, select: { uuid: true, user_id: true } });
      if (row) return row.user_id;
    }
    return null;
  }

  async create(
    userId: string,
    definition: WorkflowDefinition,
    notifySecret: string,
    manifestOf: ManifestOf,
    note?: VersionNote,
  ): Promise<WorkflowRecord> {
    // Before the transaction: the manifest may ask MCP servers over the network.
    const manifest = await manifestOf(definition);
    return this.dataSource
      .transaction(async (manager) => {
        await claimUuids(manager, userId, claimsOf(definition));
        await manager.insert(WorkflowEntity, {
          ...toWorkflowRow(definition),
          ...manifest,
          uuid: definition.uuid,
          user_id: userId,
          notify_secret: notifySecret,
        });
        await this.writeChildren(manager, userId, definition);
        const created = (await this.load(manager, userId, definition.uuid, false))!;
        return { ...created, version: await appendVersion(manager, userId, definitionOf(created), null, note, this.versionsKept) };
      })
      .catch(conflictOnDuplicate);
  }

  /**
   * Optimistic, so that no row lock waits on the network: the change and its manifest (which may ask MCP
   * servers) are computed from a plain read, then the transaction locks the row and writes only if the
   * definition is still the one the change saw; otherwise it starts again from the new one. Concurrent
   * edits still apply one after another, each on top of the last.
   */
  async mutate(
    userId: string,
    uuid: string,
    change: (current: WorkflowDefinition) => WorkflowDefinition,
    manifestOf: ManifestOf,
    note?: VersionNote,
  ): Promise<WorkflowRecord | null> {
    for (let attempt = 1; ; attempt++) {
      // One snapshot for the workflow row and its step and trigger rows: never half of another save.
      const seen = await this.dataSource.transaction((manager) => this.load(manager, userId, uuid, false));
      if (!seen) return null;
      const next = change(definitionOf(seen));
      const manifest = await manifestOf(next);
      const saved = await this.dataSource
        .transaction((manager) => this.saveIfUnchanged(manager, seen, next, manifest, note))
        .catch(conflictOnDuplicate);
      if (saved !== CHANGED_MEANWHILE) return saved;
      if (attempt === MAX_EDIT_ATTEMPTS) {
        throw new DomainError(
          ErrorCode.Conflict,
          `Workflow ${uuid} changed ${MAX_EDIT_ATTEMPTS} times while this edit was being saved: send it again`,
          { uuid },
        );
      }
    }
  }

  async setNotifySecret(userId: string, uuid: string, secret: string): Promise<boolean> {
    const result = (await this.dataSource.query('UPDATE workflows SET notify_secret = ? WHERE uuid = ? AND user_id = ?', [
      secret,
      uuid,
      userId,
    ])) as { affectedRows: number };
    return result.affectedRows > 0;
  }

  async delete(userId: string, uuid: string): Promise<boolean> {
    const result = await this.dataSource.getRepository(WorkflowEntity).delete({ uuid, user_id: userId });
    return (result.affected ?? 0) > 0;
  }

  /** Under the row lock: the edit's definition and manifest, unless another save changed the definition since `seen` was read. */
  private async saveIfUnchanged(
    manager: EntityManager,
    seen: WorkflowRecord,
    next: WorkflowDefinition,
    manifest: SavedToolManifest,
    note?: VersionNote,
  ): Promise<WorkflowRecord | null | typeof CHANGED_MEANWHILE> {
    const { uuid, user_id: userId } = seen;
    const current = await this.load(manager, userId, uuid, true);
    if (!current) return null;
    if (!isDeepStrictEqual(definitionOf(current), definitionOf(seen))) return CHANGED_MEANWHILE;
    await claimUuids(manager, userId, claimsOf(next));
    await manager.update(
      WorkflowEntity,
      { uuid, user_id: userId },
      { ...toWorkflowRow(next), ...manifest, updated_at: () => 'CURRENT_TIMESTAMP(3)' },
    );
    // Steps are rewritten whole: renames and swaps never trip the unique (workflow, name) key midway.
    await manager.delete(WorkflowStepEntity, { workflow_uuid: uuid });
    await this.writeSteps(manager, userId, next);
    await this.replaceTrigger(manager, userId, current.trigger, next);
    const saved = (await this.load(manager, userId, uuid, false))!;
    const previous = { version: current.version, definition: definitionOf(current) };
    return { ...saved, version: await appendVersion(manager, userId, definitionOf(saved), previous, note, this.versionsKept) };
  }

  private async writeChildren(manager: EntityManager, userId: string, definition: WorkflowDefinition): Promise<void> {
    await this.writeSteps(manager, userId, definition);
    if (definition.trigger) await manager.insert(TriggerEntity, toTriggerRow(definition.trigger, definition.uuid, userId));
  }

  private async writeSteps(manager: EntityManager, userId: string, definition: WorkflowDefinition): Promise<void> {
    if (definition.steps.length) {
      await manager.insert(
        WorkflowStepEntity,
        definition.steps.map((step) => toStepRow(step, definition.uuid, userId)),
      );
    }
  }

  /**
   * A trigger kept (same uuid) is updated in place: its secret, accepted signatures and deliveries hang off
   * its row and go with it (foreign keys), so a trigger replaced or removed takes them along, an edit does not.
   */
  private async replaceTrigger(
    manager: EntityManager,
    userId: string,
    current: TriggerDefinition | null,
    next: WorkflowDefinition,
  ): Promise<void> {
    if (current && next.trigger?.uuid === current.uuid) {
      const { type, details } = toTriggerRow(next.trigger, next.uuid, userId);
      await manager.update(TriggerEntity, { uuid: current.uuid }, { type, details });
      return;
    }
    if (current) await manager.delete(TriggerEntity, { uuid: current.uuid });
    if (next.trigger) await manager.insert(TriggerEntity, toTriggerRow(next.trigger, next.uuid, userId));
  }

  private async load(manager: EntityManager, userId: string, uuid: string, lock: boolean): Promise<WorkflowRecord | null> {
    const workflow = await manager.findOne(WorkflowEntity, {
      where: { uuid, user_id: userId },
      ...(lock ? { lock: { mode: 'pessimistic_write' as const } } : {}),
    });
    if (!workflow) return null;
    const [steps, trigger] = await Promise.all([
      workflow.steps.length ? manager.findBy(WorkflowStepEntity, { uuid: In(workflow.steps), workflow_uuid: uuid }) : [],
      manager.findOneBy(TriggerEntity, { workflow_uuid: uuid }),
    ]);
    return toWorkflowRecord(workflow, steps, trigger);
  }
}
