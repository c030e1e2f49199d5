// The activity side of graph runs: a router step held to its choices, edge conditions evaluated on an
// output, and a step's own row settled from its executions when the run ends.
import { Injectable } from '@nestjs/common';
import type { CustomAgentStep, CustomLlmStep, StepResultRef, JsonObject, StepContext } from '@app/contracts';
import { AppConfig } from '@app/config';
import { evaluateRules, ExpressionMeter } from '@app/domain';
import { OutputRepository, StepRepository } from '@app/persistence';

type ModelStep = CustomLlmStep | CustomAgentStep;

@Injectable()
export class GraphService {
  constructor(
    private readonly steps: StepRepository,
    private readonly outputs: OutputRepository,
    private readonly config: AppConfig,
  ) {}

  /**
   * A router step (its CONDITIONAL edges give `context.route_choices`) answers JSON with `next` among its
   * choices, on top of its own output_schema: the structured-output corrections then hold it to them.
   */
  routed<T extends ModelStep>(step: T, context: StepContext): T {
    const choices = context.route_choices;
    if (!choices?.length) return step;
    const route = { type: 'object', required: ['next'], properties: { next: { enum: choices, description: 'Where the run goes next' } } };
    const instruction = `\n\nWhen you are done, answer JSON whose "next" field says where the run goes next: one of ${choices.map((choice) => JSON.stringify(choice)).join(', ')}.`;
    return {
      ...step,
      system_prompt: step.system_prompt + instruction,
      output_schema: step.output_schema ? { allOf: [step.output_schema, route] } : route,
    };
  }

  /** The route a router step's output (`data`) chose. */
  withRoute(context: StepContext, ref: StepResultRef, data: unknown): StepResultRef {
    if (!context.route_choices?.length) return ref;
    return { ...ref, route: String((data as { next?: unknown } | null)?.next) };
  }

  async conditionsHeld(userId: string, outputId: string, edges: { uuid: string; conditions: JsonObject }[]): Promise<string[]> {
    const data = (await this.outputs.findOutput(userId, outputId))?.raw_data;
    // One budget for the step's routing, however many edges it has.
    const meter = new ExpressionMeter(this.config.limits.expression);
    return edges
      .filter((edge) => evaluateRules(edge.conditions, data, meter, `edges[uuid=${edge.uuid}].conditions`))
      .map((edge) => edge.uuid);
  }

  /** The step's own row after the run: failed if an execution failed, else completed with its latest output (referenced). */
  async close(instanceUuid: string, failed: boolean): Promise<void> {
    const [latest] = await this.outputs.executionOutputs(instanceUuid, 1);
    if (failed || !latest) {
      await this.steps.failStep(
        instanceUuid,
        failed ? 'An execution of this step failed: see its executions' : 'No execution of this step completed',
      );
      return;
    }
    await this.steps.completeStepWithOutput(instanceUuid, latest.uuid);
  }
}
