// A workflow's versions: one immutable row per save that changed its definition (workflow_versions). They are
// written by the workflow repository inside the save's own transaction (appendVersion), so a save and its
// version are never one without the other; this repository only reads them.
import type { WorkflowDefinition } from '@app/contracts';
import { DomainError, ErrorCode, definitionHash } from '@app/domain';
import type { DataSource, EntityManager } from 'typeorm';
import { WorkflowVersionEntity } from './definition.entities';

export interface WorkflowVersionRecord {
  workflow_uuid: string;
  version: number;
  /** Who saved it (the workflow's owner: every save is scoped to one user). */
  user_id: string;
  content_hash: string;
  change_description: string | null;
  created_at: Date;
  definition: WorkflowDefinition;
}

export type WorkflowVersionSummary = Omit<WorkflowVersionRecord, 'definition'>;

/** What a save may say about the version it writes. */
export interface VersionNote {
  change_description?: string | null;
}

export interface VersionPage {
  items: WorkflowVersionSummary[];
  total: number;
  limit: number;
  /** The next page starts below this version (null: last page). */
  next_cursor: string | null;
}

/** Every method is scoped to one user: another user's workflow has no versions to them. */
export abstract class WorkflowVersionRepository {
  /** Newest first; `cursor` is a page's next_cursor. */
  abstract list(userId: string, workflowUuid: string, page: { limit: number; cursor?: string }): Promise<VersionPage>;
  abstract find(userId: string, workflowUuid: string, version: number): Promise<WorkflowVersionRecord | null>;
}

const summaryOf = ({ definition: _definition, ...summary }: WorkflowVersionEntity): WorkflowVersionSummary => summary;

export class TypeormWorkflowVersionRepository extends WorkflowVersionRepository {
  constructor(private readonly dataSource: DataSource) {
    super();
  }

  async list(userId: string, workflowUuid: string, page: { limit: number; cursor?: string }): Promise<VersionPage> {
    const below = page.cursor === undefined ? null : Number(page.cursor);
    if (below !== null && !(Number.isInteger(below) && below > 0))
      throw new DomainError(ErrorCode.ValidationFailed, 'cursor is not a next_cursor this API gave', { field: 'cursor' });
    const query = this.dataSource
      .getRepository(WorkflowVersionEntity)
      .createQueryBuilder('row')
      .select(['row.workflow_uuid', 'row.version', 'row.user_id', 'row.content_hash', 'row.change_description', 'row.created_at'])
      .where('row.workflow_uuid = :workflowUuid AND row.user_id = :userId', { workflowUuid, userId });
    const total = await query.clone().getCount();
    if (below !== null) query.andWhere('row.version < :below', { below });
    const rows = await query
      .orderBy('row.version', 'DESC')
      .take(page.limit + 1)
      .getMany();
    const items = rows.slice(0, page.limit).map(summaryOf);
    return {
      items,
      total,
      limit: page.limit,
      next_cursor: rows.length > page.limit ? String(items[items.length - 1].version) : null,
    };
  }

  async find(userId: string, workflowUuid: string, version: number): Promise<WorkflowVersionRecord | null> {
    const row = await this.dataSource
      .getRepository(WorkflowVersionEntity)
      .findOneBy({ workflow_uuid: workflowUuid, version, user_id: userId });
    return row ? { ...summaryOf(row), definition: row.definition as WorkflowDefinition } : null;
  }
}

/**
 * Inside a save's transaction, the workflow row locked (or just inserted): the saved definition becomes the
 * workflow's next version, unless it is the content of the version it is at already (a save that changed
 * nothing). Only the `kept` latest versions stay (WORKFLOW_VERSIONS_KEPT): each holds a whole definition, and a
 * workflow saved in a loop must not grow without end. Returns the version the workflow is at.
 */
export async function appendVersion(
  manager: EntityManager,
  userId: string,
  saved: WorkflowDefinition,
  previous: { version: number; definition: WorkflowDefinition } | null,
  note: VersionNote = {},
  kept = Number.MAX_SAFE_INTEGER,
): Promise<number> {
  const content_hash = definitionHash(saved);
  if (previous && definitionHash(previous.definition) === content_hash) return previous.version;
  const version = previous ? previous.version + 1 : 1;
  await manager.insert(WorkflowVersionEntity, {
    workflow_uuid: saved.uuid,
    version,
    user_id: userId,
    definition: saved,
    content_hash,
    change_description: note.change_description ?? null,
  });
  if (version > kept)
    await manager.query('DELETE FROM workflow_versions WHERE workflow_uuid = ? AND version <= ?', [saved.uuid, version - kept]);
  // A new workflow's row starts at version 1; updated_at stays the save's (the record returned shows it).
  if (previous)
    await manager.query('UPDATE workflows SET version = ?, updated_at = updated_at WHERE uuid = ? AND user_id = ?', [
      version,
      saved.uuid,
      userId,
    ]);
  return version;
}
