// Where the workflow repository spec gets what it tests: from the worker's Nest container, as production does.
import { WorkflowRepository } from '@app/persistence';
import { startMedium } from '../support/medium-app';
import { Rows } from '../support/rows';

export async function setUpWorkflowRepository() {
  const app = await startMedium();
  return { sut: app.get(WorkflowRepository), rows: new Rows(app.db), db: app.db, close: app.close };
}
