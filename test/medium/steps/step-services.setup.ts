// Where the step service specs get what they test: the worker's services from its Nest container, the
// model client pointed at the model fake (a real HTTP server, called by the real openai SDK).
import { OneTripPool, RunRepository, StepRepository } from '@app/persistence';
import type { ChainStepRunner } from '../../../apps/worker/src/activities/chain-run-on';
import { AgentStepService } from '../../../apps/worker/src/execution/agent-step.service';
import { GraphService } from '../../../apps/worker/src/execution/graph.service';
import { LlmStepService } from '../../../apps/worker/src/execution/llm-step.service';
import { LoopService } from '../../../apps/worker/src/execution/loop.service';
import { RecentOutputs } from '../../../apps/worker/src/execution/recent-outputs';
import { StopCheckerService } from '../../../apps/worker/src/execution/stop-checker.service';
import { StructuredOutputService } from '../../../apps/worker/src/execution/structured-output.service';
import { ToolCallService } from '../../../apps/worker/src/execution/tool-call.service';
import { ModelFake } from '../../support/model-fake';
import { startMedium, type MediumOptions } from '../support/medium-app';
import { Rows } from '../support/rows';

export async function setUpStepServices(options: Omit<MediumOptions, 'modelBaseUrl'> = {}) {
  const model = await ModelFake.start();
  const app = await startMedium({ ...options, modelBaseUrl: model.baseUrl });
  const llm = app.get(LlmStepService);
  const steps = app.get(StepRepository);
  /** A chain's LLM steps as the activity runs them on (runOn), each holding its end for the next one's start. */
  const chainRunner: ChainStepRunner = {
    run: async (context, step, scope, before) => {
      const { stored, end } = await llm.runHoldingEnd(context, step, scope, before);
      return { ref: stored.ref, end };
    },
    writeEnd: (end) => llm.writeEnd(end),
    failStep: (instanceUuid, message) => steps.failStep(instanceUuid, message),
  };
  return {
    model,
    /** What the specs do to a run themselves: record it, and complete the steps before the one under test. */
    runs: app.get(RunRepository),
    steps,
    rows: new Rows(app.db),
    /** For what the specs read that no step service gives (the usage report). */
    get: app.get,
    /** For counting what a service sends (test/medium/support/statements.ts). */
    db: app.db,
    oneTrip: app.get(OneTripPool),
    llm,
    chainRunner,
    structured: app.get(StructuredOutputService),
    agent: app.get(AgentStepService),
    toolCalls: app.get(ToolCallService),
    stopChecker: app.get(StopCheckerService),
    graph: app.get(GraphService),
    loops: app.get(LoopService),
    recent: app.get(RecentOutputs),
    /** After each spec: every scripted answer was asked for and nothing else; the next spec starts clean even if not. */
    expectModelDone() {
      try {
        model.assertDone();
      } finally {
        model.reset();
      }
    },
    async close() {
      await app.close();
      await model.close();
    },
  };
}
