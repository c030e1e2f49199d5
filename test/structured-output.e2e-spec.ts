// Structured output end to end: answers validated against output_schema, sent back for correction with
// the validation errors inside the step's activity, every attempt audited, and a step that never complies
// failing with those errors.
import { agentStep, llmStep } from './support/factories';
import { reply, type RecordedMessage } from './support/model-fake';
import { useStack, type RunBody, type Stack } from './support/stack';
import { ToolServer } from './support/tool-server';

const LABEL_SCHEMA = { type: 'object', required: ['label', 'score'], properties: { label: { type: 'string' }, score: { type: 'number' } } };

describe('Structured output', () => {
  let stack: Stack;

  useStack((started) => (stack = started));

  const run = (steps: Record<string, unknown>[]) => stack.runSteps(steps, { text: 'buy now!!!' });

  const lastMessage = (index: number): RecordedMessage => stack.model.requests[index].body.messages.at(-1)!;
  const turnsOf = (step: RunBody) => step.model_calls.map((call: RunBody) => [call.turn, call.attempt, call.status]);

  it('sends an answer that is not JSON back with the error, and completes with the corrected one: one step, two audited calls', async () => {
    const label = llmStep({ name: 'label', output_schema: LABEL_SCHEMA });
    stack.model.script(reply.text('{"label": "spam", "score": '), reply.json({ label: 'spam', score: 0.9 }));

    const body = await run([label]);

    expect(body).toMatchObject({ status: 'completed', error_message: null });
    const [step] = body.steps;
    expect(step).toMatchObject({ status: 'completed', output: { raw_data: { label: 'spam', score: 0.9 } }, tokens: { total: 30 } });
    expect(turnsOf(step)).toEqual([
      [1, 1, 'completed'],
      [2, 1, 'completed'],
    ]);
    const [first, second] = stack.model.requests.map((request) => request.body);
    expect(first.response_format).toMatchObject({ type: 'json_schema', json_schema: { schema: LABEL_SCHEMA } });
    expect(second.response_format).toEqual(first.response_format);
    expect(second.messages.slice(0, 2)).toEqual(first.messages);
    expect(second.messages.slice(2)).toEqual([
      expect.objectContaining({ role: 'assistant', content: '{"label": "spam", "score": ' }),
      { role: 'user', content: expect.stringContaining('- the answer holds no JSON object or array') },
    ]);
    // The step's conversation shows every attempt; each call's audit names how much of it was sent.
    expect(step.messages.map((message: RunBody) => message.role)).toEqual(['system', 'user', 'assistant', 'user', 'assistant']);
    expect(step.model_calls.map((call: RunBody) => call.request.message_count)).toEqual([2, 4]);
  });

  it('names each schema violation by field in the correction message', async () => {
    stack.model.script(reply.json({ score: 'high' }), reply.json({ label: 'ham', score: 0.1 }));

    const body = await run([llmStep({ output_schema: LABEL_SCHEMA })]);

    expect(body.status).toBe('completed');
    expect(lastMessage(1).content).toBe(
      'Your answer does not follow the required JSON Schema:\n- label is required\n- score must be number\nAnswer again with only the corrected JSON, following the schema exactly.',
    );
  });

  it('accepts JSON wrapped in prose or a ```json fence the first time', async () => {
    const fenced = llmStep({ name: 'fenced', output_schema: LABEL_SCHEMA });
    const prose = llmStep({ name: 'prose', output_schema: LABEL_SCHEMA });
    stack.model.script(
      reply.text('Here is the result:\n```json\n{"label": "spam", "score": 1}\n```\nAnything else?'),
      reply.text('Sure. The classification is {"label": "ham", "score": 0} as requested.'),
    );

    const body = await run([fenced, prose]);

    expect(body.status).toBe('completed');
    expect(body.steps.map((step: RunBody) => step.output.raw_data)).toEqual([
      { label: 'spam', score: 1 },
      { label: 'ham', score: 0 },
    ]);
    expect(body.steps.map((step: RunBody) => step.model_calls.length)).toEqual([1, 1]);
  });

  it('fails the step after 1 + max_correction_attempts (default 2) answers, with the validation errors', async () => {
    const label = llmStep({ name: 'stubborn', output_schema: LABEL_SCHEMA });
    stack.model.script(reply.json({ score: 'high' }), reply.text('I cannot do that.'), reply.json({ label: 3, score: 'high' }));

    const body = await run([label, llmStep({ name: 'after' })]);

    const error = 'step "stubborn" gave no answer following its output_schema in 3 attempts: label must be string; score must be number';
    expect(body).toMatchObject({ status: 'failed', error_message: `Step "stubborn" failed: ${error}` });
    expect(body.steps.map((step: RunBody) => step.status)).toEqual(['failed', 'skipped']);
    expect(body.steps[0]).toMatchObject({ error_message: error, output: null, tokens: { total: 45 } });
    // Not retried by Temporal: three calls in one activity attempt.
    expect(turnsOf(body.steps[0])).toEqual([
      [1, 1, 'completed'],
      [2, 1, 'completed'],
      [3, 1, 'completed'],
    ]);
    expect(lastMessage(2).content).toContain('- the answer holds no JSON object or array');
    expect(body.steps[0].messages).toHaveLength(7);
  });

  it('fails at the first invalid answer with max_correction_attempts 0', async () => {
    stack.model.script(reply.json({ label: 'spam' }));

    const body = await run([llmStep({ name: 'strict', output_schema: LABEL_SCHEMA, max_correction_attempts: 0 })]);

    expect(body).toMatchObject({ status: 'failed', error_message: 'Step "strict" failed: step "strict" gave no answer following its output_schema in 1 attempt: score is required' });
    expect(body.steps[0].model_calls).toHaveLength(1);
  });

  it('corrects an agent final answer in its completion, in turns after the agent own, offering no tools', async () => {
    const tools = await ToolServer.start({ lookup: () => ({ sender: 'unknown', links: 4 }) });
    try {
      const agent = agentStep({ name: 'classifier', tools: ['http_request'], output_schema: LABEL_SCHEMA });
      stack.model.script(
        reply.toolCalls([{ name: 'http_request', arguments: { url: tools.url('lookup'), method: 'POST', body: {} } }]),
        reply.json({ label: 'spam', score: '90%' }),
        reply.text('```json\n{"label": "spam", "score": 0.9}\n```'),
      );

      const body = await run([agent]);

      expect(body.status).toBe('completed');
      const [step] = body.steps;
      expect(step.output!.raw_data).toEqual({ label: 'spam', score: 0.9 });
      expect(turnsOf(step)).toEqual([
        [1, 1, 'completed'],
        [2, 1, 'completed'],
        [3, 1, 'completed'],
      ]);
      expect(step.tool_calls).toHaveLength(1);
      const correction = stack.model.requests[2].body;
      expect(correction.tools).toBeUndefined();
      expect(correction.response_format).toMatchObject({ type: 'json_schema', json_schema: { schema: LABEL_SCHEMA } });
      expect(correction.messages.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'tool', 'assistant', 'user']);
      expect(lastMessage(2).content).toContain('- score must be number');
      expect(step.messages).toHaveLength(7);
    } finally {
      await tools.close();
    }
  });
});
