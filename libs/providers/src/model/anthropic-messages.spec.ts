// The mapping alone, both ways: our chat messages, tools and response formats to a Messages API request,
// and an Anthropic message back to our answer.
import type { Message } from '@anthropic-ai/sdk/resources/messages';
import type { ChatMessage } from '@app/contracts';
import { fromAnthropicMessage, JSON_ANSWER_TOOL, toAnthropicMessages, toAnthropicRequest, usageOf } from './anthropic-messages';
import type { ModelRequest } from './model-client';

const request = (overrides: Partial<ModelRequest> = {}): ModelRequest => ({
  model: 'claude-test',
  messages: [{ role: 'user', content: 'hi' }],
  ...overrides,
});

/** An answer as the API sends it; only what the mapping reads matters. */
const answer = (
  content: unknown[],
  stop_reason: string | null,
  usage: Record<string, number> = { input_tokens: 7, output_tokens: 3 },
): Message =>
  ({ id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-test-20250101', content, stop_reason, usage }) as unknown as Message;

const schema = { type: 'object', required: ['summary'], properties: { summary: { type: 'string' } } };

describe(toAnthropicRequest.name, () => {
  it('moves system messages to `system`, always sends max_tokens, and offers tools with their input_schema', () => {
    const sent = toAnthropicRequest(
      request({
        messages: [
          { role: 'system', content: 'be brief' },
          { role: 'system', content: 'answer in French' },
          { role: 'user', content: 'hi' },
        ],
        tools: [{ name: 'search', description: 'find things', parameters: { properties: { q: { type: 'string' } } } }],
        temperature: 0.2,
      }),
      4096,
    );

    expect(sent).toEqual({
      model: 'claude-test',
      max_tokens: 4096,
      system: 'be brief\n\nanswer in French',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
      tools: [{ name: 'search', description: 'find things', input_schema: { type: 'object', properties: { q: { type: 'string' } } } }],
      temperature: 0.2,
    });
    expect(toAnthropicRequest(request({ max_tokens: 100 }), 4096)).toEqual({
      model: 'claude-test',
      max_tokens: 100,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
    });
  });

  it('forces the schema tool for a json_schema format, wrapping a schema that is not an object', () => {
    const structured = toAnthropicRequest(request({ response_format: { type: 'json_schema', name: 'step_output', schema } }), 10);
    const list = toAnthropicRequest(
      request({ response_format: { type: 'json_schema', name: 'step_output', schema: { type: 'array' } } }),
      10,
    );
    const anyObject = toAnthropicRequest(request({ response_format: { type: 'json_object' } }), 10);

    expect([structured.tools, structured.tool_choice]).toEqual([
      [{ name: 'step_output', description: expect.stringContaining('final answer'), input_schema: schema }],
      { type: 'tool', name: 'step_output' },
    ]);
    expect(list.tools?.[0]).toMatchObject({
      input_schema: { type: 'object', properties: { value: { type: 'array' } }, required: ['value'] },
    });
    expect([anyObject.tools?.[0], anyObject.tool_choice]).toEqual([
      expect.objectContaining({ name: JSON_ANSWER_TOOL, input_schema: { type: 'object' } }),
      { type: 'tool', name: JSON_ANSWER_TOOL },
    ]);
  });

  it('asks for a tool call, any, when the schema tool sits beside the step tools', () => {
    const tools = [{ name: 'search', description: 'd', parameters: { type: 'object' } }];

    expect(toAnthropicRequest(request({ tools, response_format: { type: 'json_schema', name: 'out', schema } }), 10).tool_choice).toEqual({
      type: 'any',
    });
  });
});

describe(toAnthropicMessages.name, () => {
  it('turns tool calls into tool_use blocks and merges consecutive tool results into one user turn', () => {
    const messages: ChatMessage[] = [
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'look it up' },
      {
        role: 'assistant',
        content: 'Searching.',
        tool_calls: [
          { id: 'toolu_1', name: 'search', arguments: '{"q":"x"}' },
          { id: 'toolu_2', name: 'fetch', arguments: '{"url": broken' },
        ],
      },
      { role: 'tool', content: '{"r":1}', tool_call_id: 'toolu_1', name: 'search' },
      { role: 'tool', content: '{"error":"bad arguments"}', tool_call_id: 'toolu_2', name: 'fetch' },
      { role: 'user', content: 'and then?' },
      { role: 'assistant', content: '' },
    ];

    expect(toAnthropicMessages(messages)).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'look it up' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Searching.' },
          { type: 'tool_use', id: 'toolu_1', name: 'search', input: { q: 'x' } },
          { type: 'tool_use', id: 'toolu_2', name: 'fetch', input: {} },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_1', content: '{"r":1}' },
          { type: 'tool_result', tool_use_id: 'toolu_2', content: '{"error":"bad arguments"}' },
          { type: 'text', text: 'and then?' },
        ],
      },
    ]);
  });

  it('refuses a tool message without tool_call_id as a final bad request', () => {
    expect(() => toAnthropicMessages([{ role: 'tool', content: 'x' }])).toThrow(
      expect.objectContaining({ kind: 'bad_request', retryable: false }),
    );
  });
});

describe(fromAnthropicMessage.name, () => {
  it('maps text, tool_use blocks, the stop reason, usage and the model', () => {
    const text = fromAnthropicMessage(
      answer(
        [
          { type: 'text', text: 'Hello' },
          { type: 'text', text: ' there' },
        ],
        'end_turn',
      ),
      request(),
    );
    const tools = fromAnthropicMessage(
      answer(
        [
          { type: 'text', text: 'Let me look.' },
          { type: 'tool_use', id: 'toolu_9', name: 'search', input: { q: 'x' } },
        ],
        'tool_use',
      ),
      request(),
    );

    expect(text).toEqual({
      message: { role: 'assistant', content: 'Hello there' },
      finish_reason: 'stop',
      usage: { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 },
      model: 'claude-test-20250101',
    });
    expect(tools).toMatchObject({
      message: { content: 'Let me look.', tool_calls: [{ id: 'toolu_9', name: 'search', arguments: '{"q":"x"}' }] },
      finish_reason: 'tool_calls',
    });
  });

  it.each([
    ['end_turn', 'stop'],
    ['stop_sequence', 'stop'],
    ['tool_use', 'tool_calls'],
    ['max_tokens', 'length'],
    ['refusal', 'content_filter'],
    ['pause_turn', 'pause_turn'],
  ])('maps stop_reason %s to finish_reason %s', (stop, finish) => {
    expect(fromAnthropicMessage(answer([{ type: 'text', text: 'x' }], stop), request()).finish_reason).toBe(finish);
  });

  it('makes the schema tool call the answer: its input as JSON text, unwrapped, with no tool calls', () => {
    const format = { type: 'json_schema' as const, name: 'step_output', schema };
    const structured = fromAnthropicMessage(
      answer([{ type: 'tool_use', id: 't', name: 'step_output', input: { summary: 'short' } }], 'tool_use'),
      request({ response_format: format }),
    );
    const wrapped = fromAnthropicMessage(
      answer([{ type: 'tool_use', id: 't', name: 'out', input: { value: [1, 2] } }], 'tool_use'),
      request({ response_format: { type: 'json_schema', name: 'out', schema: { type: 'array' } } }),
    );

    expect(structured.message).toEqual({ role: 'assistant', content: '{"summary":"short"}' });
    expect(structured.finish_reason).toBe('stop');
    expect(wrapped.message.content).toBe('[1,2]');
  });

  it('adds cached input to the prompt tokens, names the cache reads, and reads absent counts as none', () => {
    expect(usageOf({ input_tokens: 5, cache_read_input_tokens: 100, cache_creation_input_tokens: 20, output_tokens: 4 })).toEqual({
      prompt_tokens: 125,
      completion_tokens: 4,
      total_tokens: 129,
      cached_tokens: 100,
    });
    expect(usageOf(undefined)).toEqual({ prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 });
  });

  it('makes an answer without content blocks a retryable malformed response', () => {
    expect(() => fromAnthropicMessage({ type: 'message' } as unknown as Message, request())).toThrow(
      expect.objectContaining({ kind: 'malformed_response', retryable: true }),
    );
  });
});
