// Our chat messages to Anthropic's Messages API and back. Pure: no HTTP, no SDK client.
//
// Structured output: the Messages API has no response_format. We offer the schema as a tool named after
// it and force the model to call it (`tool_choice`): the tool's input is the answer, and the model fills it
// following the schema as it does any tool's arguments. That works on every model with tool use, unlike a
// system instruction whose JSON may come wrapped in prose. The input becomes the answer's content as JSON
// text, so the step's own validation (and its correction turns) applies unchanged.
import type {
  ContentBlockParam,
  Message,
  MessageCreateParamsNonStreaming,
  MessageParam,
  Tool,
  ToolChoice,
} from '@anthropic-ai/sdk/resources/messages';
import type { ChatMessage, ToolCallRequest, ToolSpec } from '@app/contracts';
import { invalidModelRequest, malformedResponse } from './model-call-error';
import { tokenCount, type ModelRequest, type ModelResponse, type ResponseFormat } from './model-client';

/** The tool a json_object answer is given through (any object). */
export const JSON_ANSWER_TOOL = 'json_answer';

const ANSWER_TOOL_DESCRIPTION = 'Give your final answer by calling this tool: its input is the answer.';

/** How a response format travels as a tool; `wrapped`: the schema is not an object's, so the answer is `{value}`. */
interface AnswerTool {
  tool: Tool;
  wrapped: boolean;
}

export function answerToolOf(format: ResponseFormat | null | undefined): AnswerTool | null {
  if (!format) return null;
  if (format.type === 'json_object')
    return { tool: { name: JSON_ANSWER_TOOL, description: ANSWER_TOOL_DESCRIPTION, input_schema: { type: 'object' } }, wrapped: false };
  // A tool's input is always an object: another schema (an array, a string) is the `value` of one.
  const wrapped = format.schema.type !== 'object';
  const input_schema = wrapped
    ? { type: 'object' as const, properties: { value: format.schema }, required: ['value'] }
    : (format.schema as Tool.InputSchema);
  return { tool: { name: format.name, description: ANSWER_TOOL_DESCRIPTION, input_schema }, wrapped };
}

export function toAnthropicRequest(request: ModelRequest, defaultMaxTokens: number): MessageCreateParamsNonStreaming {
  const system = request.messages
    .filter((message) => message.role === 'system')
    .map((message) => message.content ?? '')
    .filter(Boolean);
  const answer = answerToolOf(request.response_format);
  const tools = [...(request.tools ?? []).map(toAnthropicTool), ...(answer ? [answer.tool] : [])];
  // The answer tool alone: call it. Beside the step's own tools: call one of them, never answer in prose.
  const tool_choice: ToolChoice | undefined = answer
    ? tools.length === 1
      ? { type: 'tool', name: answer.tool.name }
      : { type: 'any' }
    : undefined;
  return {
    model: request.model,
    // Anthropic requires a ceiling on every call.
    max_tokens: request.max_tokens ?? defaultMaxTokens,
    ...(system.length ? { system: system.join('\n\n') } : {}),
    messages: toAnthropicMessages(request.messages),
    ...(tools.length ? { tools } : {}),
    ...(tool_choice ? { tool_choice } : {}),
    ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
  };
}

export function toAnthropicTool(tool: ToolSpec): Tool {
  return { name: tool.name, description: tool.description, input_schema: { ...tool.parameters, type: 'object' } };
}

/**
 * User and assistant turns in order: tool results become `tool_result` blocks of a user turn, and
 * consecutive turns of one role are merged into one (Anthropic wants them alternating, and all the results
 * of one assistant turn's tool calls in the next user turn). System messages go to `system` instead.
 */
export function toAnthropicMessages(messages: readonly ChatMessage[]): MessageParam[] {
  const turns: { role: 'user' | 'assistant'; content: ContentBlockParam[] }[] = [];
  messages.forEach((message, index) => {
    if (message.role === 'system') return;
    const role = message.role === 'assistant' ? 'assistant' : 'user';
    const blocks = blocksOf(message, index);
    if (!blocks.length) return; // Anthropic refuses empty turns and empty text blocks
    const last = turns.at(-1);
    if (last?.role === role) last.content.push(...blocks);
    else turns.push({ role, content: blocks });
  });
  return turns;
}

function blocksOf(message: ChatMessage, index: number): ContentBlockParam[] {
  const text: ContentBlockParam[] = message.content?.trim() ? [{ type: 'text', text: message.content }] : [];
  switch (message.role) {
    case 'tool':
      if (!message.tool_call_id) throw invalidModelRequest(`messages[${index}] is a tool message without tool_call_id`);
      return [{ type: 'tool_result', tool_use_id: message.tool_call_id, content: message.content ?? '' }];
    case 'assistant':
      return [...text, ...(message.tool_calls ?? []).map(toToolUse)];
    case 'user':
      return text;
    default:
      throw invalidModelRequest(`messages[${index}] has an unknown role ${JSON.stringify((message as { role: unknown }).role)}`);
  }
}

/** Our arguments are the model's JSON text; Anthropic wants the object back (an unreadable text: none). */
function toToolUse(call: ToolCallRequest): ContentBlockParam {
  let input: unknown;
  try {
    input = JSON.parse(call.arguments);
  } catch {
    input = {};
  }
  return {
    type: 'tool_use',
    id: call.id,
    name: call.name,
    input: input !== null && typeof input === 'object' && !Array.isArray(input) ? input : {},
  };
}

const FINISH_REASONS: Record<string, string> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  tool_use: 'tool_calls',
  max_tokens: 'length',
  model_context_window_exceeded: 'length',
  refusal: 'content_filter',
};

/** The assistant message, finish reason, usage and model of an answer; anything else is malformed. */
export function fromAnthropicMessage(answer: Message, request: ModelRequest): Omit<ModelResponse, 'duration_ms'> {
  if (!Array.isArray(answer?.content)) throw malformedResponse('no content blocks');
  const answerTool = answerToolOf(request.response_format);
  const texts: string[] = [];
  const toolCalls: ToolCallRequest[] = [];
  let structured: string | null = null;
  for (const block of answer.content) {
    if (block?.type === 'text' && typeof block.text === 'string') texts.push(block.text);
    if (block?.type !== 'tool_use') continue; // thinking and server-tool blocks are never asked for
    if (typeof block.id !== 'string' || typeof block.name !== 'string') throw malformedResponse('a tool_use block without id or name');
    if (answerTool && block.name === answerTool.tool.name)
      structured = JSON.stringify(answerTool.wrapped ? ((block.input as { value?: unknown })?.value ?? null) : block.input);
    else toolCalls.push({ id: block.id, name: block.name, arguments: JSON.stringify(block.input ?? {}) });
  }
  const content = structured ?? (texts.length ? texts.join('') : null);
  // The answer tool's call is the answer, not a tool call: the turn ended.
  const finish =
    structured !== null && !toolCalls.length
      ? 'stop'
      : answer.stop_reason
        ? (FINISH_REASONS[answer.stop_reason] ?? answer.stop_reason)
        : null;
  return {
    message: { role: 'assistant', content, ...(toolCalls.length ? { tool_calls: toolCalls } : {}) },
    finish_reason: finish,
    usage: usageOf(answer.usage),
    model: typeof answer.model === 'string' && answer.model ? answer.model : request.model,
  };
}

/** Anthropic counts cached input apart: the prompt is all three. */
export function usageOf(usage: Partial<Message['usage']> | undefined): ModelResponse['usage'] {
  const prompt =
    tokenCount(usage?.input_tokens) + tokenCount(usage?.cache_creation_input_tokens) + tokenCount(usage?.cache_read_input_tokens);
  const answer = tokenCount(usage?.output_tokens);
  const cached = tokenCount(usage?.cache_read_input_tokens);
  return { prompt_tokens: prompt, completion_tokens: answer, total_tokens: prompt + answer, ...(cached ? { cached_tokens: cached } : {}) };
}
