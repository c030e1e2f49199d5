// Where the run repository specs get what they test: the repositories from the worker's Nest container.
import { CallAuditRepository, OutputRepository, RunRepository, StepRepository, WorkflowRepository } from '@app/persistence';
import { startMedium } from '../support/medium-app';
import { Rows } from '../support/rows';

/** Each user may have this many runs in flight: small, so the quota specs reach it. */
export const RUNS_IN_FLIGHT_LIMIT = 5;

/** The run's repositories, one per part of its record: the run row, its steps, its outputs, its call audit. */
export interface RunRepositories {
  runs: RunRepository;
  steps: StepRepository;
  outputs: OutputRepository;
  audit: CallAuditRepository;
}

export async function setUpRunRepository() {
  const app = await startMedium({ maxRunsInFlightPerUser: RUNS_IN_FLIGHT_LIMIT });
  const repositories: RunRepositories = {
    runs: app.get(RunRepository),
    steps: app.get(StepRepository),
    outputs: app.get(OutputRepository),
    audit: app.get(CallAuditRepository),
  };
  return { ...repositories, workflows: app.get(WorkflowRepository), rows: new Rows(app.db), get: app.get.bind(app), close: app.close };
}
