import { Injectable } from '@nestjs/common';
import type { WorkflowDefinition } from '@app/contracts';
import { AppConfig, modelPolicyOf } from '@app/config';
import { calledWorkflows, DomainError, ErrorCode, modelPolicyIssues, notFound, subWorkflowIssues, throwIssues } from '@app/domain';
import { uuidTaken, WorkflowRepository, type ManifestOf, type VersionNote, type WorkflowRecord } from '@app/persistence';
import { reachableWorkflows, ToolManifestService } from '@app/runs';
import { StepSummaries } from './step-summaries.service';

/**
 * Loading and saving a user's workflow definitions, with the not-found and uuid-taken rules in one place.
 * Every save (create, edit, import) stores the tool manifest of the saved definition with it and, when its
 * content changed, a new immutable version (`note` on it); then asks for the generated_summary of the steps
 * whose prompt or tools changed.
 */
@Injectable()
export class DefinitionStore {
  constructor(
    readonly workflows: WorkflowRepository,
    private readonly toolManifests: ToolManifestService,
    private readonly summaries: StepSummaries,
    private readonly config: AppConfig,
  ) {}

  async get(userId: string, uuid: string): Promise<WorkflowRecord> {
    return (await this.workflows.find(userId, uuid)) ?? this.missing(uuid);
  }

  async create(userId: string, definition: WorkflowDefinition, notifySecret: string, note?: VersionNote): Promise<WorkflowRecord> {
    this.assertModelsAllowed(definition);
    return this.saved(userId, await this.workflows.create(userId, definition, notifySecret, this.manifestOf(userId), note));
  }

  async edit(
    userId: string,
    uuid: string,
    change: (current: WorkflowDefinition) => WorkflowDefinition,
    note?: VersionNote,
  ): Promise<WorkflowRecord> {
    const checked = (current: WorkflowDefinition) => this.assertModelsAllowed(change(current));
    return this.saved(userId, (await this.workflows.mutate(userId, uuid, checked, this.manifestOf(userId), note)) ?? this.missing(uuid));
  }

  /** The providers configured, MODELS_ALLOWED and MAX_MAX_TOKENS: a save naming another provider or model, or more tokens, is refused. */
  private assertModelsAllowed(definition: WorkflowDefinition): WorkflowDefinition {
    throwIssues(modelPolicyIssues(definition.steps, modelPolicyOf(this.config)));
    return definition;
  }

  /** After every save: the steps whose prompt or tools changed get a new generated_summary. */
  private async saved(userId: string, record: WorkflowRecord): Promise<WorkflowRecord> {
    await this.summaries.refresh(userId, record.steps);
    return record;
  }

  /**
   * Read before the save's transaction, as the manifest is: the workflows the sub_workflow steps call must be
   * the user's, never call this one back and nest at most SUB_WORKFLOW_MAX_DEPTH deep.
   */
  private manifestOf(userId: string): ManifestOf {
    return async (definition) => {
      await this.assertSubWorkflows(userId, definition);
      return this.toolManifests.forSave(userId, definition.steps);
    };
  }

  private async assertSubWorkflows(userId: string, definition: WorkflowDefinition): Promise<void> {
    if (!calledWorkflows(definition).length) return;
    const maxDepth = this.config.composition.subWorkflowMaxDepth;
    throwIssues(subWorkflowIssues(definition, await reachableWorkflows(this.workflows, userId, definition, maxDepth), maxDepth));
  }

  async workflowOfStep(userId: string, stepUuid: string): Promise<string> {
    return (await this.workflows.findWorkflowOfStep(userId, stepUuid)) ?? this.missing(stepUuid, 'Step');
  }

  async workflowOfTrigger(userId: string, triggerUuid: string): Promise<string> {
    return (await this.workflows.findWorkflowOfTrigger(userId, triggerUuid)) ?? this.missing(triggerUuid, 'Trigger');
  }

  /**
   * New rows must not take a uuid that any workflow, step or trigger has now (CONFLICT), nor one another
   * user has ever saved (UUID_TAKEN: what was keyed by it, a trigger's deliveries say, must not reach them).
   */
  async assertUuidsFree(userId: string, uuids: { uuid: string; field: string }[]): Promise<void> {
    for (const { uuid, field } of uuids) {
      const claimant = await this.workflows.claimantOf(uuid);
      if (claimant !== null && claimant !== userId) throw uuidTaken(uuid, field);
      if (await this.workflows.ownerOfUuid(uuid)) {
        throw new DomainError(ErrorCode.Conflict, `${field} ${uuid} is already in use`, { field, uuid });
      }
    }
  }

  private missing(uuid: string, what = 'Workflow'): never {
    throw notFound(what, uuid);
  }
}
