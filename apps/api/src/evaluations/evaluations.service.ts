import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { DATASET_BODY, DomainError, ErrorCode, EVALUATION_BODY, isUuid, notFound } from '@app/domain';
import { EvaluationRepository, WorkflowRepository, WorkflowVersionRepository, type EvaluationRecord } from '@app/persistence';
import { EvaluationLauncher } from '../temporal/evaluation-launcher';

/** Datasets and evaluations of a user's workflows (#30): REST and MCP call the same methods. */
@Injectable()
export class EvaluationsService {
  constructor(
    private readonly evaluations: EvaluationRepository,
    private readonly workflows: WorkflowRepository,
    private readonly versions: WorkflowVersionRepository,
    private readonly launcher: EvaluationLauncher,
  ) {}

  /** POST /workflows/{uuid}/datasets: creates the dataset, or replaces the cases of the one of that name. */
  async saveDataset(userId: string, workflowUuid: string, body: unknown) {
    await this.workflowOf(userId, workflowUuid);
    const { name, cases } = DATASET_BODY.parse(body);
    const saved = await this.evaluations.saveDataset(userId, workflowUuid, name, cases);
    return { uuid: saved.uuid, workflow_uuid: workflowUuid, name, cases: saved.cases, updated_at: saved.updated_at };
  }

  async listDatasets(userId: string, workflowUuid: string) {
    await this.workflowOf(userId, workflowUuid);
    return { items: await this.evaluations.listDatasets(userId, workflowUuid) };
  }

  /** POST /workflows/{uuid}/evaluations: the dataset's cases run against the target (and a baseline), in Temporal. */
  async start(userId: string, workflowUuid: string, body: unknown) {
    const workflow = await this.workflowOf(userId, workflowUuid);
    const { dataset: name, targets, concurrency } = EVALUATION_BODY.parse(body);
    const dataset = await this.evaluations.findDataset(userId, workflowUuid, name);
    if (!dataset) throw new DomainError(ErrorCode.NotFound, `Workflow ${workflowUuid} has no dataset ${name}`, { field: 'dataset' });
    for (const [i, target] of targets.entries())
      if (target !== 'current' && !(await this.versions.find(userId, workflowUuid, target)))
        throw new DomainError(ErrorCode.NotFound, `Workflow ${workflowUuid} has no version ${target}`, {
          field: i === targets.length - 1 ? 'target' : 'against',
        });
    const uuid = randomUUID();
    await this.evaluations.createEvaluation({
      uuid,
      user_id: userId,
      workflow_uuid: workflowUuid,
      dataset: name,
      cases: dataset.cases,
      targets,
    });
    try {
      await this.launcher.start(
        { evaluation_uuid: uuid, user_id: userId, target_count: targets.length, case_count: dataset.cases.length, concurrency },
        `evaluation of ${workflow.name} on ${name} — ${uuid}`,
      );
    } catch (error) {
      await this.evaluations.endEvaluation(uuid, 'failed', null, 'The evaluation could not be started in Temporal');
      throw error;
    }
    return this.get(userId, uuid);
  }

  async get(userId: string, uuid: string) {
    const evaluation = isUuid(uuid) ? await this.evaluations.findEvaluation(userId, uuid) : null;
    if (!evaluation) throw notFound('Evaluation', uuid);
    return viewOf(evaluation);
  }

  async cancel(userId: string, uuid: string) {
    const evaluation = await this.get(userId, uuid);
    if (evaluation.status === 'running') await this.launcher.cancel(uuid);
    return { uuid, status: evaluation.status, cancel_requested: evaluation.status === 'running' };
  }

  private async workflowOf(userId: string, workflowUuid: string) {
    const workflow = isUuid(workflowUuid) ? await this.workflows.find(userId, workflowUuid) : null;
    if (!workflow) throw notFound('Workflow', workflowUuid);
    return workflow;
  }
}

function viewOf(evaluation: EvaluationRecord) {
  const { user_id: _user, cases, ...rest } = evaluation;
  return { ...rest, case_count: cases.length };
}
