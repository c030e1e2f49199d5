// MySQL drops the worker's connections while a step runs (KILL from an admin connection, as a database
// failover or a network cut would end them): the worker's pool reconnects, the step finishes, the run
// completes, and no audit row is lost or written twice.
import { DataSource } from 'typeorm';
import { llmStep } from './support/factories';
import { expectEachStepAskedOnce, startFaultChain } from './support/fault-chain';
import { reply } from './support/model-fake';
import { MysqlAdmin } from './support/mysql-admin';
import { auditOf, expectEachStepOnce } from './support/run-audit';
import { useStack, type Stack } from './support/stack';

describe('MySQL connections dropped during a step', () => {
  let admin: MysqlAdmin;
  let workerUser: string;
  let workerDatabaseUrl: string;
  let stack: Stack;

  beforeAll(async () => {
    admin = await MysqlAdmin.connect();
    ({ user: workerUser, databaseUrl: workerDatabaseUrl } = await admin.createUser());
  });
  useStack(
    (started) => (stack = started),
    () => ({ workerDatabaseUrl }),
  );
  afterAll(() => admin?.close()); // after the stack has closed: registered after useStack

  it('completes the run with every step once and its whole audit', async () => {
    const started = Date.now();
    const run = await startFaultChain(stack);
    const killed = await admin.killConnectionsOf(workerUser);
    const done = await stack.waitForRun(run.uuid);
    console.log(`mysql drop: ${killed} worker connection(s) killed, run ${Date.now() - started} ms`);

    expect(killed).toBeGreaterThan(0);
    expect(done.status).toBe('completed');
    expectEachStepAskedOnce(stack);
    expectEachStepOnce(await auditOf(stack.api.app.get(DataSource), run.uuid));
  });

  it('finishes a step whose closing write was cut in flight, without asking the model again', async () => {
    const steps = ['first', 'second'].map((name) => llmStep({ name, system_prompt: `Step ${name}: $previous_output` }));
    const wf = await stack.createWorkflow(steps);
    stack.model.script(reply.text('one', { delayMs: 500 }), reply.text('two'));

    const run = await stack.startRun(wf.uuid, { text: 'go' });
    await stack.model.waitForRequests(1);
    // While the model answers, the first step's row is locked: its closing write (output + step completed,
    // one transaction) waits on it, and its connection dies in the middle of that transaction.
    const release = await admin.lockRow('workflow_step_instances', run.steps[0].uuid);
    await admin.waitForStatement(workerUser, 'UPDATE workflow_step_instances i JOIN');
    const killed = await admin.killConnectionsOf(workerUser);
    await release();
    const done = await stack.waitForRun(run.uuid);

    expect(killed).toBeGreaterThan(0);
    expect(done.status).toBe('completed');
    expect(stack.model.requests.map((request) => request.body.messages[0].content)).toEqual([
      expect.stringMatching(/^Step first: /),
      'Step second: one',
    ]);
    expectEachStepOnce(await auditOf(stack.api.app.get(DataSource), run.uuid));
  });
});
