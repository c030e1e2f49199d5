import { Injectable } from '@nestjs/common';
import { AppConfig } from '@app/config';
import type { StepDefinition, SummarizeStepInput } from '@app/contracts';
import { summarySourceOf } from '@app/domain';
import { StepSummaryRepository, WorkflowRepository } from '@app/persistence';
import { ModelClients } from '@app/providers';
import type { ActivityScope } from './activity-scope';

const INSTRUCTIONS =
  'You describe steps of automated workflows to the people who use them. Answer with one plain sentence ' +
  '(at most 30 words, no markdown, no quotes) saying what the step does.';

/** Asks the model for a step's generated_summary and stores it, unless the step changed in the meantime. */
@Injectable()
export class StepSummaryService {
  constructor(
    private readonly summaries: StepSummaryRepository,
    private readonly workflows: WorkflowRepository,
    private readonly models: ModelClients,
    private readonly config: AppConfig,
  ) {}

  async summarize({ step_uuid, user_id, source_hash }: SummarizeStepInput, scope: ActivityScope): Promise<void> {
    if (!(await this.summaries.isCurrent(step_uuid, source_hash))) return;
    const source = summarySourceOf((await this.stepOf(user_id, step_uuid)) ?? ({ type: 'deleted' } as never));
    // Deleted, or edited again: a newer summary is (or will be) asked for.
    if (source?.hash !== source_hash) return;
    // SUMMARY_MODEL is a model of the default provider.
    const response = await this.models.forProvider(this.config.providers.default).complete(
      {
        model: this.config.summaries.model,
        messages: [
          { role: 'system', content: INSTRUCTIONS },
          { role: 'user', content: source.text },
        ],
      },
      { signal: scope.signal },
    );
    await this.summaries.complete(step_uuid, source_hash, oneSentence(response.message.content ?? ''));
  }

  fail({ step_uuid, source_hash }: SummarizeStepInput, errorMessage: string): Promise<void> {
    return this.summaries.fail(step_uuid, source_hash, errorMessage);
  }

  private async stepOf(userId: string, stepUuid: string): Promise<StepDefinition | null> {
    const workflowUuid = await this.workflows.findWorkflowOfStep(userId, stepUuid);
    const workflow = workflowUuid ? await this.workflows.find(userId, workflowUuid) : null;
    return workflow?.steps.find((step) => step.uuid === stepUuid) ?? null;
  }
}

/** The answer on one line, without the quotes or markdown a model adds anyway, cut at 500 characters. */
function oneSentence(text: string): string {
  return text
    .replace(/\s+/g, ' ')
    .replace(/^["'*_\s]+|["'*_\s]+$/g, '')
    .slice(0, 500);
}
