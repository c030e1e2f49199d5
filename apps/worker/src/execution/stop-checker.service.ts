import { Injectable } from '@nestjs/common';
import type { StepContext, StopCheckerStep, StopCheckResult } from '@app/contracts';
import { AppConfig } from '@app/config';
import { evaluateStopConditions, ExpressionMeter } from '@app/domain';
import { OutputRepository, StepRepository } from '@app/persistence';

/** stop_checker: evaluates its conditions on earlier outputs; it produces no output of its own. */
@Injectable()
export class StopCheckerService {
  constructor(
    private readonly steps: StepRepository,
    private readonly outputs: OutputRepository,
    private readonly config: AppConfig,
  ) {}

  async run(context: StepContext, step: StopCheckerStep): Promise<StopCheckResult> {
    await this.steps.startStep(context.instance_uuid, { stop_conditions: step.stop_conditions });
    const data = new Map<string, unknown>();
    for (const uuid of new Set(step.stop_conditions.map((condition) => condition.step_definition_uuid))) {
      data.set(uuid, (await this.outputs.outputOfStep(context.run_uuid, uuid))?.raw_data);
    }
    const result = evaluateStopConditions(
      step.stop_conditions,
      (uuid) => data.get(uuid),
      new ExpressionMeter(this.config.limits.expression),
    );
    await this.steps.completeStep(context.instance_uuid, null);
    if (!result.matched) return { stopped: false, reason: null };
    const { extraction_json_path, operator, target_value } = result.condition!;
    return {
      stopped: true,
      reason: `Stopped by "${step.name}": ${extraction_json_path} ${operator} ${JSON.stringify(target_value)} (was ${JSON.stringify(result.actual)})`,
    };
  }
}
