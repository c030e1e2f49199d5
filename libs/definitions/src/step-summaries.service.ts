import { Injectable, Logger } from '@nestjs/common';
import { AppConfig } from '@app/config';
import type { StepDefinition, SummaryStatus } from '@app/contracts';
import { summarySourceOf } from '@app/domain';
import { StepSummaryRepository } from '@app/persistence';
import { SummaryLauncher } from './summary-launcher';

export type StepWithSummary = StepDefinition & { generated_summary?: string | null; generated_summary_status?: SummaryStatus | null };

/** A step's generated_summary: asked for after a save that changed a prompt or tools, shown on reads. */
@Injectable()
export class StepSummaries {
  private readonly logger = new Logger('summaries');

  constructor(
    private readonly summaries: StepSummaryRepository,
    private readonly launcher: SummaryLauncher,
    private readonly config: AppConfig,
  ) {}

  /**
   * Starts a summary for each LLM or agent step whose prompt or tools changed (or whose last summary
   * failed). The save stands either way: a summary that cannot be asked for now is marked failed, and the
   * next save asks again.
   */
  async refresh(userId: string, steps: StepDefinition[]): Promise<void> {
    if (!this.config.summaries.enabled) return;
    for (const step of steps) {
      const source = summarySourceOf(step);
      if (!source || !(await this.summaries.request(userId, step.uuid, source.hash))) continue;
      const input = { step_uuid: step.uuid, user_id: userId, source_hash: source.hash };
      await this.launcher.start(input).catch(async (error: unknown) => {
        this.logger.warn(`the summary of step ${step.uuid} could not be asked for: ${(error as Error).message}`);
        await this.summaries.fail(
          step.uuid,
          source.hash,
          'The summary could not be asked for (Temporal unavailable); save the step again to retry',
        );
      });
    }
  }

  /** The steps with their generated_summary and its status (null: none asked for); other step types unchanged. */
  async shown(steps: StepDefinition[]): Promise<StepWithSummary[]> {
    const rows = new Map((await this.summaries.find(steps.map((step) => step.uuid))).map((row) => [row.step_uuid, row]));
    return steps.map((step) => {
      if (!summarySourceOf(step)) return step;
      const row = rows.get(step.uuid);
      return { ...step, generated_summary: row?.summary ?? null, generated_summary_status: row?.status ?? null };
    });
  }
}
