// The anthropic provider end to end: steps naming it run through the real Anthropic SDK against a fake of
// the Messages API (the OpenAI-compatible fake must see nothing of them), on real Temporal and MySQL. And
// openrouter, the same protocol as openai with a key and base URL of its own.
import { randomUUID } from 'node:crypto';
import { anthropicReply } from './support/anthropic-fake';
import { registerLookupTool } from './support/agent-run';
import { agentStep, llmStep } from './support/factories';
import type { ModelFake } from './support/model-fake';
import { reply } from './support/model-fake';
import { useStack, type RunBody, type Stack } from './support/stack';
import { ToolServer } from './support/tool-server';

const LABEL_SCHEMA = { type: 'object', required: ['label', 'score'], properties: { label: { type: 'string' }, score: { type: 'number' } } };
const MODEL = 'claude-test';

describe('The anthropic provider', () => {
  let stack: Stack;
  let anthropic: ModelFake;

  useStack(
    (started) => {
      stack = started;
      anthropic = started.anthropic!;
    },
    { anthropic: true, models: { allowed: ['test-model', `anthropic:${MODEL}`], defaultMaxTokens: 700, maxMaxTokens: 32_768 } },
  );

  const callsOf = (step: RunBody) =>
    step.model_calls.map((call: RunBody) => [call.provider, call.model, call.turn, call.attempt, call.status]);

  it('runs an agent that calls a registered tool: tool_use, then the tool_result in the next user turn, all audited', async () => {
    const tools = await ToolServer.start({ lookup: (args) => ({ found: args }) });
    try {
      const name = await registerLookupTool(stack.user, tools.url('lookup'));
      anthropic.script(
        anthropicReply.toolUse([{ name, input: { q: 'stepwise' } }], { usage: { input_tokens: 40, output_tokens: 8 } }),
        anthropicReply.text('It is a workflow engine.', { usage: { input_tokens: 60, output_tokens: 12 } }),
      );

      const body = await stack.runSteps([agentStep({ provider: 'anthropic', model: MODEL, tools: [name] })]);

      expect(body.status).toBe('completed');
      const [step] = body.steps;
      expect(step.output!.raw_data).toBe('It is a workflow engine.');
      expect(tools.countOf('lookup', { q: 'stepwise' })).toBe(1);
      expect(step.tool_calls).toEqual([
        expect.objectContaining({ tool_name: name, status: 'completed', input: { q: 'stepwise' }, output: { found: { q: 'stepwise' } } }),
      ]);
      expect(callsOf(step)).toEqual([
        ['anthropic', MODEL, 1, 1, 'completed'],
        ['anthropic', MODEL, 2, 1, 'completed'],
      ]);
      expect(step.tokens).toEqual({ prompt: 100, completion: 20, total: 120 });
      const [first, second] = anthropic.requests.map((request) => request.body);
      expect(first).toMatchObject({
        model: MODEL,
        max_tokens: 700,
        system: expect.stringContaining('Use your tools'),
        tools: expect.arrayContaining([expect.objectContaining({ name, input_schema: expect.objectContaining({ type: 'object' }) })]),
      });
      const toolUseId = step.tool_calls[0].tool_call_id;
      expect(toolUseId).toMatch(/^toolu_/);
      expect(second.messages.slice(1)).toEqual([
        { role: 'assistant', content: [{ type: 'tool_use', id: toolUseId, name, input: { q: 'stepwise' } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: toolUseId, content: expect.stringContaining('"found"') }] },
      ]);
      expect(stack.model.requests).toHaveLength(0);
    } finally {
      await tools.close();
    }
  });

  it('retries a 529 after its retry-after through Temporal: one run, two audited attempts', async () => {
    anthropic.script(anthropicReply.overloaded(1), anthropicReply.text('fine'));

    const body = await stack.runSteps([llmStep({ provider: 'anthropic', model: MODEL })]);

    expect(body.status).toBe('completed');
    const [step] = body.steps;
    expect(step).toMatchObject({ attempts: 2, output: { raw_data: 'fine' } });
    expect(callsOf(step)).toEqual([
      ['anthropic', MODEL, 1, 1, 'failed'],
      ['anthropic', MODEL, 1, 2, 'completed'],
    ]);
    expect(step.model_calls[0].error_message).toBe('model provider answered 529: Overloaded');
    expect(anthropic.requests[1].received_at - anthropic.requests[0].received_at).toBeGreaterThanOrEqual(900);
  });

  it('gets structured output through the forced schema tool, with a correction turn for an answer that breaks the schema', async () => {
    anthropic.script(
      anthropicReply.toolUse([{ name: 'step_output', input: { label: 'spam' } }]),
      anthropicReply.toolUse([{ name: 'step_output', input: { label: 'spam', score: 0.9 } }]),
    );

    const body = await stack.runSteps([llmStep({ provider: 'anthropic', model: MODEL, output_schema: LABEL_SCHEMA })]);

    expect(body.status).toBe('completed');
    const [step] = body.steps;
    expect(step.output!.raw_data).toEqual({ label: 'spam', score: 0.9 });
    expect(callsOf(step)).toEqual([
      ['anthropic', MODEL, 1, 1, 'completed'],
      ['anthropic', MODEL, 2, 1, 'completed'],
    ]);
    const [first, second] = anthropic.requests.map((request) => request.body);
    expect(first).toMatchObject({
      tools: [{ name: 'step_output', input_schema: LABEL_SCHEMA }],
      tool_choice: { type: 'tool', name: 'step_output' },
    });
    expect(second.messages.slice(1)).toEqual([
      { role: 'assistant', content: [{ type: 'text', text: '{"label":"spam"}' }] },
      { role: 'user', content: [{ type: 'text', text: expect.stringContaining('- score is required') }] },
    ]);
  });

  it('refuses at save a provider that is not configured, an unknown one, and a model outside its allowlist', async () => {
    const refused = async (step: object, field: string, code: string) =>
      expect(await stack.user.post('/workflows', { name: `wf-${randomUUID().slice(0, 6)}`, steps: [step] })).toMatchObject({
        status: 422,
        body: { code, details: { field } },
      });

    await refused(llmStep({ provider: 'openrouter' }), 'steps[0].provider', 'PROVIDER_NOT_CONFIGURED');
    await refused(agentStep({ provider: 'mistral' }), 'steps[0].provider', 'VALIDATION_FAILED');
    await refused(llmStep({ provider: 'anthropic', model: 'test-model' }), 'steps[0].model', 'MODEL_NOT_ALLOWED');
    await refused(llmStep({ model: MODEL }), 'steps[0].model', 'MODEL_NOT_ALLOWED');
  });

  it('shows the provider field in the step type catalogue', async () => {
    const { body } = await stack.user.get('/step-types');
    const llm = (body as RunBody[]).find((type) => type.type === 'custom_llm')!;

    expect(llm.schema.properties.provider).toMatchObject({ enum: ['openai', 'anthropic', 'openrouter', null] });
  });
});

describe('The openrouter provider', () => {
  let stack: Stack;
  useStack((started) => (stack = started), { openrouter: true });

  it('sends steps naming it to its base URL with its key, and audits it by name beside openai', async () => {
    stack.model.script(reply.text('routed'), reply.text('direct'));

    const body = await stack.runSteps([llmStep({ provider: 'openrouter', model: 'meta-llama/llama-3-8b:free' }), llmStep()]);

    expect(body.status).toBe('completed');
    expect(body.steps.map((step: RunBody) => [step.output.raw_data, step.model_calls[0].provider])).toEqual([
      ['routed', 'openrouter'],
      ['direct', 'openai'],
    ]);
    expect(stack.model.requests.map((request) => [request.headers.authorization, request.body.model])).toEqual([
      ['Bearer openrouter-key', 'meta-llama/llama-3-8b:free'],
      [expect.not.stringContaining('openrouter-key'), 'test-model'],
    ]);
  });
});
