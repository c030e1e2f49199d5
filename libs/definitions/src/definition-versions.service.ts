import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { AppConfig } from '@app/config';
import {
  DomainError,
  ErrorCode,
  diffDefinitions,
  notFound,
  parseWorkflowInput,
  restoredDefinition,
  VERSION_RESTORE_BODY,
  type DefinitionDiff,
} from '@app/domain';
import { WorkflowVersionRepository, type WorkflowVersionRecord, type WorkflowVersionSummary } from '@app/persistence';
import { DefinitionStore } from './definition-store.service';
import { EgressGuard } from './egress-guard';
import { toDetailsView, type WorkflowDetailsView } from './workflow.views';

export interface VersionView {
  workflow_uuid: string;
  version: number;
  created_at: Date;
  created_by: string;
  content_hash: string;
  change_description: string | null;
  /** The version the workflow is at now. */
  is_current: boolean;
}

const viewOf = (version: WorkflowVersionSummary, current: number): VersionView => ({
  workflow_uuid: version.workflow_uuid,
  version: version.version,
  created_at: version.created_at,
  created_by: version.user_id,
  content_hash: version.content_hash,
  change_description: version.change_description,
  is_current: version.version === current,
});

/** A version number from a path (`/versions/3`): a positive integer, else a 422 naming the field. */
function versionNumber(raw: string, field: string): number {
  const version = /^[1-9]\d{0,8}$/.test(raw) ? Number(raw) : NaN;
  if (Number.isNaN(version)) throw new DomainError(ErrorCode.ValidationFailed, `${field} must be a version number (1, 2, …)`, { field });
  return version;
}

/**
 * A workflow's versions (every save that changed it is one, written by the save itself): listed, read, compared
 * and restored. Restoring saves the old content as the new current version, through the checks of any save.
 */
@Injectable()
export class DefinitionVersions {
  constructor(
    private readonly store: DefinitionStore,
    private readonly versions: WorkflowVersionRepository,
    private readonly egress: EgressGuard,
    private readonly config: AppConfig,
  ) {}

  async list(userId: string, workflowUuid: string, page: { limit: number; cursor?: string }) {
    const { version: current } = await this.store.get(userId, workflowUuid);
    const result = await this.versions.list(userId, workflowUuid, page);
    return { ...result, items: result.items.map((version) => viewOf(version, current)) };
  }

  async get(userId: string, workflowUuid: string, version: string) {
    const { version: current } = await this.store.get(userId, workflowUuid);
    const found = await this.find(userId, workflowUuid, versionNumber(version, 'version'));
    return { ...viewOf(found, current), definition: found.definition };
  }

  /** What changed from version `from` to version `to` (either may be the older). */
  async diff(userId: string, workflowUuid: string, from: string, to: string): Promise<{ from: number; to: number } & DefinitionDiff> {
    await this.store.get(userId, workflowUuid);
    const [before, after] = [
      await this.find(userId, workflowUuid, versionNumber(from, 'from')),
      await this.find(userId, workflowUuid, versionNumber(to, 'to')),
    ];
    return { from: before.version, to: after.version, ...diffDefinitions(before.definition, after.definition) };
  }

  /**
   * The version's content becomes the current definition, as a new version (none when it is the current
   * content already); `is_active` and `status` stay as they are. Checked as a save is, under today's rules.
   */
  async restore(
    userId: string,
    workflowUuid: string,
    version: string,
    body: unknown,
  ): Promise<{ restored_from: number; version: number; workflow: WorkflowDetailsView }> {
    const { change_description } = VERSION_RESTORE_BODY.parse(body);
    const source = await this.find(userId, workflowUuid, versionNumber(version, 'version'));
    parseWorkflowInput(source.definition, randomUUID, '', this.config.limits.schema);
    await this.egress.assertReachable(source.definition.notify_url, 'notify_url');
    const record = await this.store.edit(userId, workflowUuid, (current) => restoredDefinition(source.definition, current), {
      change_description: change_description ?? `restored from version ${source.version}`,
    });
    return { restored_from: source.version, version: record.version, workflow: toDetailsView(record) };
  }

  private async find(userId: string, workflowUuid: string, version: number): Promise<WorkflowVersionRecord> {
    const found = await this.versions.find(userId, workflowUuid, version);
    if (!found) throw notFound('Version', `${workflowUuid}/${version}`);
    return found;
  }
}
