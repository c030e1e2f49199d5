// Runs end to end: REST -> Temporal workflow -> activities -> MySQL audit, with the model fake.
import { randomUUID } from 'node:crypto';
import { reply } from './support/model-fake';
import { startStack, type Stack } from './support/stack';
import { llmStep, stopChecker } from './support/factories';

describe('Runs', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack();
  });
  afterEach(() => {
    stack.model.assertDone();
    stack.model.reset();
  });
  afterAll(() => stack.close());

  async function workflowWith(steps: Record<string, unknown>[]) {
    const created = await stack.user.post('/workflows', { name: `wf-${randomUUID().slice(0, 8)}`, steps });
    expect(created.status).toBe(201);
    return created.body;
  }

  async function startRun(workflowUuid: string, trigger_output: unknown = { text: 'hello' }) {
    const started = await stack.user.post(`/workflows/${workflowUuid}/runs`, { trigger_output });
    expect(started.status).toBe(201);
    return started.body;
  }

  it('runs a chain of LLM steps, passing full data forward and auditing every call', async () => {
    const first = llmStep({ name: 'summarise', system_prompt: 'Summarise: <<trigger_output.text>>' });
    const second = llmStep({ name: 'label', system_prompt: `Label <<step_output.${first.uuid}>> (count <<step_output.${first.uuid}.count>>)`, output_schema: { type: 'object', required: ['label'] } });
    const wf = await workflowWith([first, second]);
    stack.model.script(reply.json({ summary: 'short', count: 2 }, { usage: { prompt_tokens: 20, completion_tokens: 7 } }), reply.json({ label: 'greeting' }));

    const started = await startRun(wf.uuid);
    expect(started).toMatchObject({ status: 'running', steps: [{ status: expect.stringMatching(/pending|running/) }, { status: 'pending' }] });
    const run = await stack.waitForRun(started.uuid);

    expect(run).toMatchObject({ status: 'completed', error_message: null, tokens: { prompt: 30, completion: 12, total: 42 } });
    expect(run.steps.map((s: { status: string }) => s.status)).toEqual(['completed', 'completed']);
    expect(run.steps[1].output).toMatchObject({ raw_data: { label: 'greeting' }, summary: 'Object with label: "greeting"' });
    expect(run.steps[0].model_calls).toEqual([expect.objectContaining({ status: 'completed', attempt: 1, tokens: { prompt: 20, completion: 7, total: 27 } })]);
    expect(run.temporal.workflow_id).toBe(`run-${started.uuid}`);

    const [firstRequest, secondRequest] = stack.model.requests.map((r) => r.body);
    expect(firstRequest.messages[0]).toEqual({ role: 'system', content: 'Summarise: hello' });
    expect(firstRequest.response_format).toBeUndefined();
    expect(secondRequest.messages[0].content).toBe(`Label ${JSON.stringify({ summary: 'short', count: 2 }, null, 2)} (count 2)`);
    expect(secondRequest.response_format).toMatchObject({ type: 'json_schema', json_schema: { schema: { type: 'object', required: ['label'] } } });

    const output = await stack.user.get(`/outputs/${run.steps[0].output.uuid}`);
    expect(output.body).toMatchObject({ uuid: run.steps[0].output.uuid, raw_data: { summary: 'short', count: 2 } });
  });
});
