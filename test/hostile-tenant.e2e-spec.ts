// One tenant cannot hurt another (issue #26, SECURITY.md): while tenant B sends, one after another, the worst
// inputs of each class (a fanning filter rule, the largest allowed path over the deepest widest body, a schema
// with a gigantic smallest instance, a schedule every second, a retry interval Temporal cannot read, a uuid
// another tenant used, a codec request of too many payloads, a storm of bad keys, a tool whose answer streams
// far past its cap), tenant A's runs keep completing and /health/live keeps answering; every refusal is a coded
// 4xx naming the field, and none leaves a row behind. The API under attack is the built one in a process of its
// own (as deployed), probed from a process and an address of their own, so each probe measures the API's event
// loop, not jest's or the in-process worker's. (A call that kills its worker: poison-runs.e2e-spec.ts.)
import { randomUUID } from 'node:crypto';
import { agentStep, llmStep } from './support/factories';
import { HostileServer } from './support/hostile-server';
import { reply, type RecordedRequest } from './support/model-fake';
import { useStack, type Stack } from './support/stack';
import type { ApiClient, Reply } from './support/api';
import { ApiProcess } from './support/api-process';
import { startLivenessProber } from './support/liveness-prober';
import { storm } from './support/storm';

/**
 * Liveness answers within LIVENESS_MS at the median and is never held past NEVER_BLOCKED_MS while B's inputs are
 * evaluated (the issue's case: it waited 20 s). Not every probe makes 100 ms on the 2-core machine the specs share
 * (load average 12-17): requests start in turns across addresses (FairDispatch) and the storm's connections past
 * API_MAX_CONNECTIONS_PER_ADDRESS are refused unparsed (ConnectionCap), and the 0.8 MB delivery's parse and rules
 * run in the hooks' worker threads; yet the API's remaining work (the admitted guesses) competes for the cores with
 * jest, the worker, Temporal and MySQL: over eight runs (load average 10-12) 2-7 of 53-107 probes took 100-469 ms,
 * p95 75-118 ms, medians 8-18 ms, none of the slow ones during the delivery (before the pool, 3 in 4 runs were).
 */
const LIVENESS_MS = 100;
const NEVER_BLOCKED_MS = 1_000;
const HUGE_ANSWER = 200 * 1024 * 1024;
const GUESSER_ADDRESS = '127.0.0.3';
/** A guess is refused by the guard, by the address's bucket, or (past its open connections) before it is parsed. */
const STORM_ANSWERS = ['401 UNAUTHORIZED', '429 RATE_LIMITED', '429 TOO_MANY_CONNECTIONS'];

/** `{a: {a: ... {v: 1}}}`, `depth` objects deep. */
const chain = (depth: number): unknown => Array.from({ length: depth - 1 }).reduce<unknown>((inner) => ({ a: inner }), { v: 1 });
const nested = (depth: number): unknown =>
  depth === 0 ? { type: 'string', minLength: 1000 } : { type: 'array', minItems: 1000, items: nested(depth - 1) };
const systemPromptOf = (request: RecordedRequest) => request.body.messages[0].content as string;

interface Refusal {
  what: string;
  answer: Reply;
  expected: { status: number; code: string; field?: string };
}

describe('A hostile tenant', () => {
  let stack: Stack;
  let api: ApiProcess;
  let tenantA: ApiClient;
  let tenantB: ApiClient;
  let hostile: HostileServer;
  beforeAll(async () => (hostile = await HostileServer.start()));
  afterAll(() => hostile?.close());
  // The stack's worker runs the runs; its in-process API only makes the tenants' keys.
  useStack((started) => (stack = started));
  beforeAll(async () => {
    // The product's floors and per-address limits, which the other specs raise out of their way.
    api = await ApiProcess.start(stack.api.config, {
      RATE_LIMIT_PER_MINUTE: '1000000',
      RATE_LIMIT_BURST: '100000',
      ADDRESS_RATE_LIMIT_PER_MINUTE: '60',
      ADDRESS_RATE_LIMIT_BURST: '100',
    });
    tenantA = api.as(stack.user);
    tenantB = api.as(await stack.api.newUser());
  });
  afterAll(() => api?.stop());

  /** Tenant A's one-step runs, one after another until `done`: their final statuses. */
  async function runTenantA(done: () => boolean): Promise<string[]> {
    const workflow = await tenantA.post('/workflows', {
      name: 'tenant A',
      steps: [llmStep({ system_prompt: 'tenant A summarises <<trigger_output>>' })],
    });
    expect(workflow.status).toBe(201);
    const statuses: string[] = [];
    while (!done()) {
      const started = await tenantA.post(`/workflows/${workflow.body.uuid}/runs`, { trigger_output: { text: 'hi' } });
      statuses.push((await waitForRunOf(tenantA, started.body.uuid)).status);
    }
    return statuses;
  }

  /** Tenant B's worst inputs, each answered. */
  async function attack(b: ApiClient): Promise<{ refusals: Refusal[]; toolRun: string }> {
    const name = () => `wf-${randomUUID().slice(0, 8)}`;
    const refusals: Refusal[] = [];
    const refused = async (what: string, answer: Promise<Reply>, expected: Refusal['expected']) =>
      refusals.push({ what, answer: await answer, expected });

    await refused(
      'a filter rule that fans out',
      b.post('/workflows', {
        name: name(),
        steps: [llmStep()],
        trigger: { type: 'webhook', filter_rules: { path: '$..a..a..a..a..a', operator: 'exists' } },
      }),
      {
        status: 422,
        code: 'VALIDATION_FAILED',
        field: 'trigger.filter_rules.path',
      },
    );

    const hook = await b.post('/workflows', {
      name: name(),
      steps: [llmStep()],
      trigger: { type: 'webhook', filter_rules: { path: '$..a[*][*][?(@.v > 0)]', operator: 'exists' } },
    });
    expect(hook.status).toBe(201);
    const { secret } = (await b.post(`/triggers/${hook.body.trigger.uuid}/rotate-secret`)).body;
    const body = JSON.stringify({ deep: chain(30), a: [Array.from({ length: 400_000 }, () => 0)] });
    await refused(
      'the largest path over the widest, deepest body',
      api.anonymous().call('POST', `/hooks/${hook.body.trigger.uuid}`, body, { 'x-stepwise-secret': secret }),
      {
        status: 422,
        code: 'EXPRESSION_BUDGET_EXCEEDED',
        field: 'filter_rules.path',
      },
    );

    await refused(
      'a schema whose smallest instance is gigantic',
      b.post('/workflows', { name: name(), steps: [llmStep({ output_schema: nested(3) })] }),
      {
        status: 422,
        code: 'SCHEMA_TOO_LARGE',
        field: 'steps[0].output_schema',
      },
    );
    await refused(
      'a retry interval Temporal cannot read',
      b.post('/workflows', { name: name(), steps: [llmStep({ retry_policy: { initial_interval_seconds: 1e-7 } })] }),
      {
        status: 422,
        code: 'VALIDATION_FAILED',
        field: 'steps[0].retry_policy.initial_interval_seconds',
      },
    );
    await refused(
      'a schedule every second',
      b.post(`/workflows/${hook.body.uuid}/schedules`, { schedule_type: 'recurring', cron_expression: '@every 1s' }),
      {
        status: 422,
        code: 'VALIDATION_FAILED',
        field: 'cron_expression',
      },
    );

    const aWorkflow = (
      await tenantA.post('/workflows', { name: name(), steps: [llmStep()], trigger: { type: 'webhook', filter_rules: {} } })
    ).body;
    expect((await tenantA.delete(`/workflows/${aWorkflow.uuid}`)).status).toBe(204);
    const takeover = { name: name(), steps: [llmStep()], trigger: { uuid: aWorkflow.trigger.uuid, type: 'webhook', filter_rules: {} } };
    await refused("another tenant's deleted trigger uuid", b.post('/workflows', takeover), {
      status: 409,
      code: 'UUID_TAKEN',
      field: 'trigger.uuid',
    });

    const payload = { metadata: { encoding: Buffer.from('json/plain').toString('base64') }, data: Buffer.from('1').toString('base64') };
    await refused(
      'a codec request of too many payloads',
      b.post('/temporal-codec/decode', { payloads: Array.from({ length: 1001 }, () => payload) }),
      {
        status: 413,
        code: 'PAYLOAD_TOO_LARGE',
        field: 'payloads',
      },
    );

    // From an address of its own, as a guesser's would be: the cap on its connections is not the tenants'.
    const guesses = await storm(`${api.baseUrl}/workflows`, 300, GUESSER_ADDRESS);
    const answers = guesses.map((guess) => `${guess.status} ${guess.code}`);
    expect(answers.filter((answer) => !STORM_ANSWERS.includes(answer))).toEqual([]);
    // The storm is limited: answers come back in no set order (the cap frees connections as they close), so
    // the limited ones are counted rather than looked for last.
    expect(answers.filter((answer) => answer.startsWith('429 ')).length).toBeGreaterThan(0);
    console.log(
      `300 bad keys: ${STORM_ANSWERS.map((kind) => `${answers.filter((answer) => answer === kind).length} × ${kind}`).join(', ')}`,
    );

    // A tool whose answer streams 200 MB: the worker reads a capped stream, the call fails for good, the run goes on.
    const tool = `hostile_${randomUUID().slice(0, 8)}`;
    expect(
      (
        await b.post('/tools', {
          name: tool,
          description: 'dumps',
          parameters: { type: 'object' },
          endpoint_url: hostile.url(`/huge?json=1&bytes=${HUGE_ANSWER}`),
        })
      ).status,
    ).toBe(201);
    const agent = await b.post('/workflows', { name: name(), steps: [agentStep({ system_prompt: 'tenant B dumps', tools: [tool] })] });
    const started = await b.post(`/workflows/${agent.body.uuid}/runs`, { trigger_output: { text: 'dump' } });
    return { refusals, toolRun: started.body.uuid };
  }

  it("keeps tenant A's runs completing and liveness answering while tenant B sends the worst of each class", async () => {
    stack.model.respondWith((request) => {
      if (systemPromptOf(request).includes('tenant A')) return reply.text('A is done');
      if (request.body.messages.some((message) => message.role === 'tool')) return reply.text('the answer was too large');
      return reply.toolCalls([
        { name: request.body.tools!.find((tool) => tool.function.name.startsWith('hostile_'))!.function.name, arguments: {} },
      ]);
    });
    let attacking = true;
    const liveness = startLivenessProber(`${api.baseUrl}/health/live`);
    const aRuns = runTenantA(() => !attacking);
    const { refusals, toolRun } = await attack(tenantB);
    const bRun = await waitForRunOf(tenantB, toolRun);
    attacking = false;
    const [probes, aStatuses] = await Promise.all([liveness.stop(), aRuns]);

    for (const { what, answer, expected } of refusals) {
      expect([what, answer.status, answer.body.code, ...(expected.field ? [answer.body.details?.field] : [])]).toEqual([
        what,
        expected.status,
        expected.code,
        ...(expected.field ? [expected.field] : []),
      ]);
    }
    expect(bRun.status).toBe('completed');
    expect(bRun.steps[0].tool_calls.map((call: { error_message: string }) => call.error_message)).toEqual([
      expect.stringContaining('TOO_LARGE'),
    ]);
    expect(aStatuses.length).toBeGreaterThanOrEqual(3);
    expect(new Set(aStatuses)).toEqual(new Set(['completed']));
    const times = probes.map((probe) => probe.ms).sort((x, y) => x - y);
    const p95 = times[Math.floor(times.length * 0.95)];
    console.log(
      `tenant A: ${aStatuses.length} runs completed; /health/live: ${probes.length} probes, median ${times[times.length >> 1].toFixed(1)} ms, p95 ${p95.toFixed(1)} ms, slowest ${times[times.length - 1].toFixed(1)} ms, ${times.filter((ms) => ms >= LIVENESS_MS).length} at ${LIVENESS_MS} ms or more`,
    );
    expect(probes.every((probe) => probe.status === 200)).toBe(true);
    expect(times[times.length >> 1]).toBeLessThan(LIVENESS_MS);
    expect(times[times.length - 1]).toBeLessThan(NEVER_BLOCKED_MS);

    // Nothing half-written: B keeps the two workflows it was allowed to save, no schedule, and no run of its hook.
    const { body: workflows } = await tenantB.get('/workflows');
    expect(workflows.total).toBe(2);
    expect((await tenantB.get('/runs')).body.items.map((run: { uuid: string }) => run.uuid)).toEqual([toolRun]);
  });

  async function waitForRunOf(user: ApiClient, runUuid: string) {
    for (const deadline = Date.now() + 90_000; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 100))) {
      const { body } = await user.get(`/runs/${runUuid}`);
      if (body.status !== 'running') return body;
    }
    throw new Error(`run ${runUuid} did not end`);
  }
});
