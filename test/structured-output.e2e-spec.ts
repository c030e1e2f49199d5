// Structured output end to end, as a user sees it: an answer that breaks output_schema is sent back for
// correction inside the step and the run completes with the corrected one, or the step fails with the
// validation errors. How answers are parsed, worded and audited: structured-answer.spec.ts and
// test/medium/steps/structured-output.medium-spec.ts.
import { agentStep, llmStep } from './support/factories';
import { reply, type RecordedMessage } from './support/model-fake';
import { useStack, type Stack } from './support/stack';
import { ToolServer } from './support/tool-server';

const LABEL_SCHEMA = { type: 'object', required: ['label', 'score'], properties: { label: { type: 'string' }, score: { type: 'number' } } };

describe('Structured output', () => {
  let stack: Stack;

  useStack((started) => (stack = started));

  const run = (steps: Record<string, unknown>[]) => stack.runSteps(steps, { text: 'buy now!!!' });

  const lastMessage = (index: number): RecordedMessage => stack.model.requests[index].body.messages.at(-1)!;

  it('sends an answer that is not JSON back with the error, and completes with the corrected one', async () => {
    const label = llmStep({ name: 'label', output_schema: LABEL_SCHEMA });
    stack.model.script(reply.text('{"label": "spam", "score": '), reply.json({ label: 'spam', score: 0.9 }));

    const body = await run([label]);

    expect(body).toMatchObject({
      status: 'completed',
      error_message: null,
      steps: [{ status: 'completed', output: { raw_data: { label: 'spam', score: 0.9 } } }],
    });
    const [first, second] = stack.model.requests.map((request) => request.body);
    expect(first.response_format).toMatchObject({ type: 'json_schema', json_schema: { schema: LABEL_SCHEMA } });
    expect(second.messages.slice(0, 2)).toEqual(first.messages);
    expect(second.messages.slice(2)).toEqual([
      expect.objectContaining({ role: 'assistant', content: '{"label": "spam", "score": ' }),
      { role: 'user', content: expect.stringContaining('- the answer holds no JSON object or array') },
    ]);
    // The step's conversation shows every attempt.
    expect(body.steps[0].messages.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'user', 'assistant']);
  });

  it('fails the step after 1 + max_correction_attempts (default 2) answers, with the validation errors, not retried', async () => {
    const label = llmStep({ name: 'stubborn', output_schema: LABEL_SCHEMA });
    stack.model.script(reply.json({ score: 'high' }), reply.text('I cannot do that.'), reply.json({ label: 3, score: 'high' }));

    const body = await run([label, llmStep({ name: 'after' })]);

    const error = 'step "stubborn" gave no answer following its output_schema in 3 attempts: label must be string; score must be number';
    expect(body).toMatchObject({ status: 'failed', error_message: `Step "stubborn" failed: ${error}` });
    expect(body.steps.map((step) => step.status)).toEqual(['failed', 'skipped']);
    expect(body.steps[0]).toMatchObject({ error_message: error, output: null });
    expect(stack.model.requests).toHaveLength(3); // three answers in one activity: Temporal did not retry it
    expect(lastMessage(2).content).toContain('- the answer holds no JSON object or array');
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

      expect(body).toMatchObject({ status: 'completed', steps: [{ output: { raw_data: { label: 'spam', score: 0.9 } } }] });
      const correction = stack.model.requests[2].body;
      expect(correction.tools).toBeUndefined();
      expect(correction.response_format).toMatchObject({ type: 'json_schema', json_schema: { schema: LABEL_SCHEMA } });
      expect(correction.messages.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'tool', 'assistant', 'user']);
      expect(lastMessage(2).content).toContain('- score must be number');
    } finally {
      await tools.close();
    }
  });
});
