// Replays (POST /runs/{uuid}/replay): a recorded run's trigger data through a target definition, each model
// call asked as one of the record's answered from it with no provider request, each tool call made with the
// record's arguments answered from the audit, and the report that sets the two runs' steps side by side.
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { launchChromium } from './support/chromium';
import { agentStep, llmStep } from './support/factories';
import { reply } from './support/model-fake';
import { useStack, type RunBody, type Stack } from './support/stack';
import { ToolServer } from './support/tool-server';

describe('Replays', () => {
  let stack: Stack;
  let tools: ToolServer;

  useStack((started) => (stack = started));
  beforeAll(async () => {
    tools = await ToolServer.start({ lookup: () => ({ price: 10 }), send_email: () => ({ sent: true }) });
  });
  afterAll(() => tools?.close());

  /** A chain of three LLM steps, each reading the one before, and its run to the end. */
  async function threeStepRun(): Promise<{ steps: Record<string, unknown>[]; workflow: RunBody; run: RunBody }> {
    const first = llmStep({ name: 'extract', system_prompt: 'Extract the facts of <<trigger_output>>' });
    const second = llmStep({ name: 'draft', system_prompt: `Draft a reply from <<step_output.${first.uuid}>>` });
    const third = llmStep({ name: 'polish', system_prompt: `Polish <<step_output.${second.uuid}>>` });
    const steps = [first, second, third];
    const workflow = await stack.createWorkflow(steps);
    stack.model.script(reply.text('facts'), reply.text('a draft'), reply.text('a polished reply'));
    const run = await stack.waitForRun((await stack.startRun(workflow.uuid, { email: 'Where is my order?' })).uuid);
    expect(run.status).toBe('completed');
    stack.model.reset();
    return { steps, workflow, run };
  }

  async function replay(runUuid: string, body: Record<string, unknown> = {}): Promise<RunBody> {
    const started = await stack.user.post(`/runs/${runUuid}/replay`, body);
    expect(started).toMatchObject({ status: 201, body: { replay_of: runUuid } });
    return stack.waitForRun(started.body.uuid);
  }

  const report = async (replayUuid: string): Promise<RunBody> => (await stack.user.get(`/runs/${replayUuid}/replay-report`)).body;
  const outputsOf = (run: RunBody) => run.steps.map((step: RunBody) => step.output?.raw_data);

  it('replays a run against its unchanged workflow from the record alone: no provider request, the same outputs', async () => {
    const { run } = await threeStepRun();

    const replayed = await replay(run.uuid);

    expect(stack.model.requests).toHaveLength(0);
    expect(replayed).toMatchObject({ status: 'completed', replay_of: run.uuid, replay_offline: false, workflow_uuid: run.workflow_uuid });
    expect(run.tokens.total).toBeGreaterThan(0);
    expect(replayed.tokens.total).toBe(0);
    expect(outputsOf(replayed)).toEqual(['facts', 'a draft', 'a polished reply']);
    const sourceCalls = run.steps.map((step: RunBody) => step.model_calls[0].uuid);
    expect(replayed.steps.map((step: RunBody) => step.model_calls[0].replayed_from)).toEqual(sourceCalls);
    expect(replayed.steps.map((step: RunBody) => step.model_calls[0].request_hash)).toEqual(
      run.steps.map((step: RunBody) => step.model_calls[0].request_hash),
    );
    const compared = await report(replayed.uuid);
    expect(compared).toMatchObject({ replay_of: run.uuid, summary: { identical: 3, changed: 0, new: 0, failed: 0, removed: 0 } });
    expect(compared.steps.map((step: RunBody) => [step.comparison, step.replay.answered, step.source.output])).toEqual([
      ['identical', 'record', 'facts'],
      ['identical', 'record', 'a draft'],
      ['identical', 'record', 'a polished reply'],
    ]);
  });

  it('replays against a changed second prompt: the first step from the record, the provider asked for the second and third only', async () => {
    const { steps, run } = await threeStepRun();
    const patched = await stack.user.patch(`/steps/${steps[1].uuid as string}`, {
      system_prompt: `${steps[1].system_prompt as string}, politely`,
    });
    expect(patched.status).toBe(200);
    stack.model.script(reply.text('a polite draft'), reply.text('a polished polite reply'));

    const replayed = await replay(run.uuid, { target: 'current' });

    expect(stack.model.requests).toHaveLength(2);
    expect(stack.model.requests[0].body.messages[0].content).toContain('politely');
    expect(stack.model.requests[1].body.messages[0].content).toContain('a polite draft');
    expect(outputsOf(replayed)).toEqual(['facts', 'a polite draft', 'a polished polite reply']);
    const compared = await report(replayed.uuid);
    expect(compared.summary).toEqual({ identical: 1, changed: 2, new: 0, failed: 0, removed: 0 });
    expect(compared.steps.map((step: RunBody) => step.replay.answered)).toEqual(['record', 'computed', 'computed']);
    expect(compared.steps[1]).toMatchObject({ source: { output: 'a draft' }, replay: { output: 'a polite draft', calls_made: 1 } });
    stack.model.reset();

    // The version the recorded run ran asks what it asked: all from the record again.
    const original = await replay(run.uuid, { target: run.workflow_version });
    expect(original).toMatchObject({ status: 'completed', workflow_version: run.workflow_version });
    expect(stack.model.requests).toHaveLength(0);
    expect((await report(original.uuid)).summary).toMatchObject({ identical: 3 });
    expect(await stack.user.post(`/runs/${run.uuid}/replay`, { target: 99 })).toMatchObject({
      status: 404,
      body: { details: { field: 'target' } },
    });
  });

  it('offline, answers what the record lacks with the dry-run model: no provider request at all', async () => {
    const { steps, workflow, run } = await threeStepRun();
    const changed = steps.map((step, i) => (i === 1 ? { ...step, system_prompt: 'Something else entirely' } : step));

    const replayed = await replay(run.uuid, { target: { name: workflow.name, steps: changed }, offline: true });

    expect(stack.model.requests).toHaveLength(0);
    expect(replayed).toMatchObject({ status: 'completed', replay_offline: true });
    expect(replayed.steps[0].output.raw_data).toBe('facts');
    expect(replayed.steps[1].model_calls[0]).toMatchObject({ provider: 'dry-run', replayed_from: null });
    expect((await report(replayed.uuid)).steps.map((step: RunBody) => step.replay.answered)).toEqual(['record', 'computed', 'computed']);
  });

  it('answers a tool call with recorded arguments from the audit, calls a side-effect-free tool anew, and stops before any other', async () => {
    const register = async (handler: string, side_effect_free: boolean) => {
      const name = `${handler}_${randomUUID().slice(0, 6)}`;
      const body = { name, description: handler, parameters: { type: 'object' }, endpoint_url: tools.url(handler), side_effect_free };
      expect(await stack.user.post('/tools', body)).toMatchObject({ status: 201, body: { side_effect_free } });
      return name;
    };
    const [lookup, email] = [await register('lookup', true), await register('send_email', false)];
    const agent = agentStep({ name: 'support', tools: [lookup, email], system_prompt: 'Answer <<trigger_output>>' });
    const workflow = await stack.createWorkflow([agent]);
    stack.model.script(
      reply.toolCalls([{ name: lookup, arguments: { sku: 'A1' } }]),
      reply.toolCalls([{ name: email, arguments: { to: 'ann@example.com' } }]),
      reply.text('Mailed Ann the price'),
    );
    const run = await stack.waitForRun((await stack.startRun(workflow.uuid, { question: 'price of A1?' })).uuid);
    expect(run.status).toBe('completed');
    expect(tools.counts()).toEqual({ lookup: 1, send_email: 1 });
    stack.model.reset();

    const unchanged = await replay(run.uuid);
    expect(unchanged.status).toBe('completed');
    expect(stack.model.requests).toHaveLength(0);
    expect(tools.counts()).toEqual({ lookup: 1, send_email: 1 });
    expect(unchanged.steps[0].tool_calls.map((call: RunBody) => [call.output, Boolean(call.replayed_from)])).toEqual([
      [{ price: 10 }, true],
      [{ sent: true }, true],
    ]);

    const reworded = { ...agent, system_prompt: 'Answer briefly <<trigger_output>>' };
    stack.model.script(
      reply.toolCalls([{ name: lookup, arguments: { sku: 'B2' } }]),
      reply.toolCalls([{ name: email, arguments: { to: 'bob@example.com' } }]),
    );
    const changed = await replay(run.uuid, { target: { name: workflow.name, steps: [reworded] } });

    expect(tools.countOf('lookup', { sku: 'B2' })).toBe(1);
    expect(tools.countOf('send_email')).toBe(1);
    expect(changed.status).toBe('failed');
    expect(changed.steps[0]).toMatchObject({ status: 'failed', error_message: expect.stringContaining('REPLAY_TOOL_NOT_REPLAYABLE') });
    expect((await report(changed.uuid)).summary).toMatchObject({ failed: 1 });
  });

  it('reuses the answer a person gave the recorded run', async () => {
    const approve = { uuid: randomUUID(), type: 'human_input', name: 'approve', prompt: 'Approve?' };
    const publish = llmStep({ name: 'publish', system_prompt: `Publish if <<step_output.${approve.uuid}>>` });
    const workflow = await stack.createWorkflow([approve, publish]);
    stack.model.script(reply.text('published'));
    const started = await stack.startRun(workflow.uuid);
    await stack.waitForRun(started.uuid, (run) => run.status === 'awaiting_input');
    expect(await stack.user.post(`/runs/${started.uuid}/steps/${approve.uuid}/input`, { input: { approved: true } })).toMatchObject({
      status: 200,
    });
    const run = await stack.waitForRun(started.uuid);
    stack.model.reset();

    const replayed = await replay(run.uuid);

    expect(replayed.status).toBe('completed');
    expect(outputsOf(replayed)).toEqual([{ approved: true }, 'published']);
    expect(stack.model.requests).toHaveLength(0);
  });

  it('evaluates a dataset of five cases against a baseline version: npm run eval exits non-zero naming the one regression', async () => {
    const answer = llmStep({
      name: 'answer',
      system_prompt: 'Answer <<trigger_output>>',
      output_schema: { type: 'object', required: ['answer'], properties: { answer: { type: 'integer' } } },
    });
    const workflow = await stack.createWorkflow([answer]);
    // The model doubles n; asked the reworded way, it gets n = 3 wrong.
    stack.model.respondWith((request) => {
      // A judge: the output passes when it is the answer 2.
      if (request.body.messages[0].content?.startsWith('You judge'))
        return reply.json({ pass: request.body.messages[1].content!.includes('{"answer":2}'), reason: 'read the answer' });
      const n = Number(/"n":\s*(\d+)/.exec(request.body.messages.map((m) => m.content).join(' '))?.[1]);
      const reworded = request.body.messages[0].content?.includes('carefully');
      return reply.json({ answer: reworded && n === 3 ? 7 : n * 2 });
    });
    const cases = [1, 2, 3, 4, 5].map((n) => ({
      name: `double ${n}`,
      trigger_output: { n },
      assertions: [{ kind: 'condition', path: '$.answer', operator: 'equals', value: n * 2 }],
    }));
    expect(await stack.user.post(`/workflows/${workflow.uuid}/datasets`, { name: 'doubling', cases })).toMatchObject({ status: 200 });
    expect(await stack.user.patch(`/steps/${answer.uuid}`, { system_prompt: 'Answer carefully <<trigger_output>>' })).toMatchObject({
      status: 200,
    });

    const cli = await promisify(execFile)(
      process.execPath,
      ['dist/apps/api/src/cli/eval.js', workflow.uuid, 'doubling', '--against', '1'],
      { env: { ...process.env, STEPWISE_API_URL: stack.user.baseUrl, STEPWISE_API_KEY: stack.user.key! } },
    ).then(
      (done) => ({ code: 0, stdout: done.stdout }),
      (failed: { code: number; stdout: string }) => ({ code: failed.code, stdout: failed.stdout }),
    );

    expect(cli.code).toBe(1);
    expect(cli.stdout).toContain('1 regression(s), 0 fix(es) against 1');
    expect(cli.stdout).toContain('REGRESSION double 3: $.answer equals 6 (was 6, now 7)');
    const uuid = /evaluation ([0-9a-f-]{36})/.exec(cli.stdout)![1];
    const evaluation = (await stack.user.get(`/evaluations/${uuid}`)).body;
    expect(evaluation).toMatchObject({ status: 'completed', targets: [1, 'current'], case_count: 5 });
    expect(evaluation.report.targets.map((target: RunBody) => [target.target, target.passed, target.failed])).toEqual([
      [1, 5, 0],
      ['current', 4, 1],
    ]);
    expect(await (await stack.api.newUser()).get(`/evaluations/${uuid}`)).toMatchObject({ status: 404 });
    // A model-graded assertion: the judge reads the criteria and the output.
    const judged = [1, 4].map((n) => ({
      name: `judged ${n}`,
      trigger_output: { n },
      assertions: [{ kind: 'judge', criteria: 'The answer is 2', model: 'test-model' }],
    }));
    await stack.user.post(`/workflows/${workflow.uuid}/datasets`, { name: 'judged', cases: judged });
    const started = (await stack.user.post(`/workflows/${workflow.uuid}/evaluations`, { dataset: 'judged' })).body;
    let judgedReport: RunBody = started;
    for (const deadline = Date.now() + 30_000; judgedReport.status === 'running' && Date.now() < deadline;) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      judgedReport = (await stack.user.get(`/evaluations/${started.uuid as string}`)).body;
    }
    expect(judgedReport.report.targets[0].cases.map((item: RunBody) => [item.case, item.passed, item.assertions[1].actual])).toEqual([
      ['judged 1', true, 'read the answer'],
      ['judged 4', false, 'read the answer'],
    ]);

    // The report's page, and a replay's: served as HTML under their own policy, the data read by the page with the key.
    for (const page of [`/evaluations/${uuid}`, `/replays/${evaluation.report.targets[0].cases[0].run_uuid as string}`]) {
      const served = await fetch(stack.user.baseUrl.replace(/\/api\/v1$/, '') + page);
      expect([served.status, served.headers.get('content-security-policy')]).toEqual([200, expect.stringContaining("default-src 'self'")]);
      expect(await served.text()).toContain('<title>stepwise report</title>');
    }
    // The report's page, in a browser: the regression first, with the value each version gave.
    const chromium = await launchChromium();
    try {
      const page = await chromium.browser.newPage();
      await page.goto(stack.user.baseUrl.replace(/\/api\/v1$/, `/evaluations/${uuid}`));
      await page.type('#key', stack.user.key!);
      await Promise.all([page.waitForNavigation(), page.click('#use')]);
      await page.waitForSelector('tr.regression');
      const regression = await page.$eval('tr.regression', (row) => (row as unknown as { innerText: string }).innerText);
      expect(regression.replace(/\s+/g, ' ')).toBe('regression double 3 $.answer equals 6 6 7');
    } finally {
      await chromium.close();
    }
    stack.model.respondWith(null);
  });

  it('cancels an evaluation with the case runs it has in flight', async () => {
    const approve = { uuid: randomUUID(), type: 'human_input', name: 'approve', prompt: 'Approve?' };
    const workflow = await stack.createWorkflow([approve]);
    const cases = [{ name: 'waits', trigger_output: { n: 1 }, assertions: [] }];
    await stack.user.post(`/workflows/${workflow.uuid}/datasets`, { name: 'waiting', cases });
    const started = await stack.user.post(`/workflows/${workflow.uuid}/evaluations`, { dataset: 'waiting' });
    expect(started).toMatchObject({ status: 201, body: { status: 'running', targets: ['current'], case_count: 1 } });
    const waiting = async () => {
      for (const deadline = Date.now() + 30_000; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 100))) {
        const page = (await stack.user.get(`/workflows/${workflow.uuid}/runs?status=awaiting_input`)).body;
        if (page.items.length) return page.items[0].uuid as string;
      }
      throw new Error('the case run never waited');
    };
    const caseRun = await waiting();

    expect(await stack.user.post(`/evaluations/${started.body.uuid}/cancel`)).toMatchObject({
      status: 200,
      body: { cancel_requested: true },
    });

    const ended = async () => {
      for (const deadline = Date.now() + 30_000; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 100))) {
        const evaluation = (await stack.user.get(`/evaluations/${started.body.uuid}`)).body;
        if (evaluation.status !== 'running') return evaluation;
      }
      throw new Error('the evaluation never ended');
    };
    expect(await ended()).toMatchObject({ status: 'cancelled', report: null });
    expect((await stack.waitForRun(caseRun)).status).toBe('cancelled');
  });

  it("is a 404 on another user's run, and for a run that is no replay", async () => {
    const { run } = await threeStepRun();
    const stranger = await stack.api.newUser();

    expect(await stranger.post(`/runs/${run.uuid}/replay`, {})).toMatchObject({ status: 404, body: { code: 'NOT_FOUND' } });
    expect(await stranger.get(`/runs/${run.uuid}/replay-report`)).toMatchObject({ status: 404 });
    expect(await stack.user.get(`/runs/${run.uuid}/replay-report`)).toMatchObject({ status: 404 });
    expect(await stack.user.post(`/runs/${run.uuid}/replay`, { target: 'latest' })).toMatchObject({
      status: 422,
      body: { details: { field: 'target' } },
    });
  });
});
