// Temporal keeps payloads encrypted (issue #15): what the server stores and a history export show holds no
// prompt, trigger, answer or tool argument; the codec endpoint decrypts them for the owner's key only.
import { randomUUID } from 'node:crypto';
import { Connection } from '@temporalio/client';
import type { Payload } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { agentStep, llmStep } from './support/factories';
import { reply } from './support/model-fake';
import { useStack, type Stack } from './support/stack';
import { fetchRunHistory, historyPayloads } from './support/temporal-history';
import { ToolServer } from './support/tool-server';
import type { ApiClient } from './support/api';

const marker = (what: string) => `${what}-${randomUUID().slice(0, 8)}`;
const PROMPT = marker('PROMPT-MARKER');
const TOOL_ARGUMENT = marker('TOOL-ARGUMENT-MARKER');
const ANSWER = marker('ANSWER-MARKER');
const TRIGGER = marker('TRIGGER-MARKER');

/** The codec-server protocol's JSON: data and metadata values in base64. */
const asJson = (payload: Payload) => ({
  metadata: Object.fromEntries(Object.entries(payload.metadata ?? {}).map(([key, value]) => [key, Buffer.from(value).toString('base64')])),
  data: Buffer.from(payload.data ?? new Uint8Array()).toString('base64'),
});
const textOf = (payloads: { data: string }[]) => payloads.map((payload) => Buffer.from(payload.data, 'base64').toString('utf8')).join('\n');
async function until<T>(probe: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 250))) {
    const value = await probe();
    if (value !== undefined) return value;
  }
  throw new Error(`nothing after ${timeoutMs} ms`);
}
const storedText = (history: temporal.api.history.v1.IHistory) =>
  Buffer.from(temporal.api.history.v1.History.encode(history).finish()).toString('latin1');

describe('Temporal payload encryption', () => {
  let stack: Stack;
  let stranger: ApiClient;
  useStack((started) => (stack = started));
  beforeAll(async () => (stranger = await stack.api.newUser()));

  const decode = (client: ApiClient, payloads: Payload[]) => client.post('/temporal-codec/decode', { payloads: payloads.map(asJson) });

  it("keeps a run's prompt, tool arguments and a person's answer out of its stored history, and decodes them for the owner only", async () => {
    const tools = await ToolServer.start({ lookup: (args) => ({ found: args }) });
    try {
      const tool = `lookup_${randomUUID().slice(0, 6)}`;
      // Longer than LOCAL_TOOL_CALL_MAX_TIMEOUT_MS: its call is an activity of its own, its arguments in the history
      // (a short tool's rounds run inside one local activity, their arguments only in MySQL).
      await stack.user.post('/tools', {
        name: tool,
        description: 'looks up',
        parameters: { type: 'object' },
        endpoint_url: tools.url('lookup'),
        timeout_ms: 60_000,
      });
      const human = { uuid: randomUUID(), type: 'human_input', name: 'approve', prompt: 'Approve?' };
      const agent = agentStep({ name: 'researcher', system_prompt: `${PROMPT} research`, tools: [tool] });
      const wf = await stack.createWorkflow([human, agent, llmStep({ name: 'write', system_prompt: `${PROMPT} write` })]);
      stack.model.script(
        reply.toolCalls([{ name: tool, arguments: { query: TOOL_ARGUMENT } }]),
        reply.text('found it'),
        reply.text('written'),
      );
      const started = await stack.startRun(wf.uuid);
      await stack.waitForRun(started.uuid, (run) => run.status === 'awaiting_input');
      expect((await stack.user.post(`/runs/${started.uuid}/steps/${human.uuid}/input`, { input: { note: ANSWER } })).status).toBe(200);
      expect((await stack.waitForRun(started.uuid)).status).toBe('completed');
      await (await stack.temporal()).workflow.getHandle(started.temporal.workflow_id).result();

      const history = await fetchRunHistory(started.temporal.workflow_id);
      for (const text of [PROMPT, TOOL_ARGUMENT, ANSWER]) expect(storedText(history).includes(text)).toBe(false);
      const payloads = historyPayloads(history);

      const owner = await decode(stack.user, payloads);
      expect(owner.status).toBe(200);
      expect(owner.body.payloads).toHaveLength(payloads.length);
      for (const text of [PROMPT, TOOL_ARGUMENT, ANSWER]) expect(textOf(owner.body.payloads)).toContain(text);

      // Another user's key gets every payload back as it sent it: still encrypted.
      const other = await decode(stranger, payloads);
      expect(other).toMatchObject({ status: 200, body: { payloads: payloads.map(asJson) } });
      expect((await decode(stack.api.anonymous(), payloads)).status).toBe(401);
    } finally {
      await tools.close();
    }
  });

  it("encrypts a schedule's trigger in its action and in the runs it starts, readable by the schedule's owner", async () => {
    const wf = await stack.createWorkflow([llmStep({ name: 'scheduled' })]);
    const created = await stack.user.post(`/workflows/${wf.uuid}/schedules`, {
      schedule_type: 'scheduled',
      run_at: new Date(Date.now() + 86_400_000).toISOString(),
      trigger_output: { text: TRIGGER },
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;

    const connection = await Connection.connect({ address: stack.api.config.temporal.address });
    try {
      const { schedule } = await connection.workflowService.describeSchedule({
        namespace: stack.api.config.temporal.namespace,
        scheduleId: id,
      });
      const input = schedule!.action!.startWorkflow!.input!.payloads!;
      expect(Buffer.from(input[0].data!).toString('latin1')).not.toContain(TRIGGER);
      expect(textOf((await decode(stack.user, input)).body.payloads)).toContain(TRIGGER);
      expect((await decode(stranger, input)).body.payloads).toEqual(input.map(asJson));

      // The execution the schedule starts is named by Temporal (`scheduled-<id>-<time>`): still the owner's.
      stack.model.script(reply.text('done'));
      expect((await stack.user.post(`/schedules/${id}/trigger`)).status).toBe(202);
      const run = await until(async () => (await stack.user.get(`/runs?schedule_id=${id}`)).body.items[0]);
      const done = await stack.waitForRun(run.uuid);
      expect(done.temporal.workflow_id).toMatch(new RegExp(`^scheduled-${id}-.+`));
      await (await stack.temporal()).workflow.getHandle(done.temporal.workflow_id).result();
      const payloads = historyPayloads(await fetchRunHistory(done.temporal.workflow_id));
      expect(textOf((await decode(stack.user, payloads)).body.payloads)).toContain(TRIGGER);
      expect((await decode(stranger, payloads)).body.payloads).toEqual(payloads.map(asJson));
    } finally {
      await connection.close();
      await stack.user.delete(`/schedules/${id}`);
    }
  });

  it("takes the key from a browser's sealed cookie on the codec routes only, for the Web UI's calls", async () => {
    const session = await stack.user.post('/temporal-codec/session');
    expect(session.status).toBe(204);
    const setCookie = session.headers.get('set-cookie') ?? '';
    expect(setCookie).toMatch(/^stepwise_codec=sealed:v1:.*; HttpOnly; SameSite=Strict$/);
    expect(setCookie).not.toContain(stack.user.key!);
    const cookie = setCookie.split(';')[0];

    const wf = await stack.createWorkflow([llmStep({ system_prompt: `${PROMPT} cookie` })]);
    stack.model.script(reply.text('ok'));
    const run = await stack.waitForRun((await stack.startRun(wf.uuid)).uuid);
    await (await stack.temporal()).workflow.getHandle(run.temporal.workflow_id).result();
    const payloads = historyPayloads(await fetchRunHistory(run.temporal.workflow_id)).map(asJson);
    const browser = stack.api.anonymous();
    const origin = stack.api.config.temporal.codecCorsOrigins[0];
    const decoded = await browser.post('/temporal-codec/decode', { payloads }, { cookie, origin });
    expect(decoded.status).toBe(200);
    expect(decoded.headers.get('access-control-allow-credentials')).toBe('true');
    expect(textOf(decoded.body.payloads)).toContain(PROMPT);
    // Anywhere else the cookie is no key.
    expect((await browser.call('GET', '/workflows', undefined, { cookie })).status).toBe(401);
    expect((await browser.call('DELETE', '/temporal-codec/session', undefined, { cookie })).headers.get('set-cookie')).toMatch(
      /^stepwise_codec=; .*Max-Age=0/,
    );
  });

  it("answers the Web UI's preflight for its origin only", async () => {
    const preflight = (origin: string) =>
      fetch(`${stack.api.baseUrl}/temporal-codec/decode`, {
        method: 'OPTIONS',
        headers: {
          origin,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'authorization,content-type,x-namespace',
        },
      });
    const uiOrigin = stack.api.config.temporal.codecCorsOrigins[0];
    const allowed = await preflight(uiOrigin);
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('access-control-allow-origin')).toBe(uiOrigin);
    expect(allowed.headers.get('access-control-allow-headers')).toMatch(/authorization/i);
    expect((await preflight('https://evil.example')).headers.get('access-control-allow-origin')).toBeNull();

    const answer = await stack.user.post(
      '/temporal-codec/encode',
      {
        payloads: [{ metadata: { encoding: Buffer.from('json/plain').toString('base64') }, data: Buffer.from('"hi"').toString('base64') }],
      },
      { origin: uiOrigin },
    );
    expect(answer.status).toBe(200);
    expect(answer.headers.get('access-control-allow-origin')).toBe(uiOrigin);
    expect(Buffer.from(answer.body.payloads[0].metadata.encoding, 'base64').toString()).toBe('binary/encrypted');
    expect((await stack.user.post('/temporal-codec/decode', { payloads: [{ data: 'not base64!' }] })).body).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: { field: 'payloads[0].data' },
    });
  });
});
