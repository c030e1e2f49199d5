// Where the run repository specs get what they test, from the worker's Nest container. RunRepository is
// being split into several repositories: re-point the methods below at the classes that hold them then;
// the specs only see this shape.
import { RunRepository, WorkflowRepository } from '@app/persistence';
import { startMedium } from '../support/medium-app';
import { Rows } from '../support/rows';

/** Each user may have this many runs in flight: small, so the quota specs reach it. */
export const RUNS_IN_FLIGHT_LIMIT = 5;

export type RunWrites = Pick<
  RunRepository,
  | 'create'
  | 'findRun'
  | 'startStep'
  | 'completeStep'
  | 'failStep'
  | 'finishRun'
  | 'storeOutput'
  | 'findOutput'
  | 'outputOfStep'
  | 'recordModelCall'
  | 'recordToolCall'
  | 'completedModelCall'
  | 'completedToolCall'
>;

export async function setUpRunRepository() {
  const app = await startMedium({ maxRunsInFlightPerUser: RUNS_IN_FLIGHT_LIMIT });
  const runs: RunWrites = app.get(RunRepository);
  return { runs, workflows: app.get(WorkflowRepository), rows: new Rows(app.db), close: app.close };
}
