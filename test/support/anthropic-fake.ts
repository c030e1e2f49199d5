// Anthropic's Messages API, faked on the model fake's server: `POST /v1/messages` answered from a script,
// every request recorded, loud when the script runs out (see model-fake.ts; only the answers differ).
//
//   const fake = await startAnthropicFake();              // the SDK's baseURL: fake.origin
//   fake.script(anthropicReply.overloaded(1), anthropicReply.toolUse([{ name: 'search', input: { q: 'x' } }]));
//   expect(fake.requests[0].body.tools).toEqual([...]);
import { ECHO_MODEL, retryHeaders, type ErrorOptions, type FakeReply } from './fake-http';
import type { StreamOptions } from './fake-stream';
import { ModelFake } from './model-fake';

export const MESSAGES_ROUTE = '/v1/messages';

export const startAnthropicFake = (): Promise<ModelFake> => ModelFake.start(MESSAGES_ROUTE);

export interface AnthropicReplyOptions {
  delayMs?: number;
  usage?: { input_tokens: number; output_tokens: number; cache_read_input_tokens?: number };
  stopReason?: string;
  /** How the answer streams when the request asks for a stream. */
  stream?: StreamOptions;
}

/** Anthropic's `error.type` for a status. */
const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
};

let messageCounter = 0;
let toolUseCounter = 0;

function message(content: Record<string, unknown>[], stopReason: string, options: AnthropicReplyOptions): FakeReply {
  const usage = options.usage ?? { input_tokens: 10, output_tokens: 5 };
  return {
    status: 200,
    delayMs: options.delayMs,
    stream: options.stream,
    body: {
      id: `msg_fake_${++messageCounter}`,
      type: 'message',
      role: 'assistant',
      model: ECHO_MODEL,
      content,
      stop_reason: options.stopReason ?? stopReason,
      stop_sequence: null,
      usage,
    },
  };
}

/** Factories of scripted Messages API answers. */
export const anthropicReply = {
  text: (text: string, options: AnthropicReplyOptions = {}): FakeReply => message([{ type: 'text', text }], 'end_turn', options),
  /** `tool_use` blocks with ids `toolu_1`, `toolu_2`... (unique within the process), after an optional text block. */
  toolUse: (calls: { name: string; input: unknown; id?: string }[], options: AnthropicReplyOptions & { text?: string } = {}): FakeReply =>
    message(
      [
        ...(options.text ? [{ type: 'text', text: options.text }] : []),
        ...calls.map((call) => ({ type: 'tool_use', id: call.id ?? `toolu_${++toolUseCounter}`, name: call.name, input: call.input })),
      ],
      'tool_use',
      options,
    ),
  /** Anthropic's error shape: `{"type": "error", "error": {"type", "message"}}`, with retry headers if asked. */
  error: (status: number, options: ErrorOptions = {}): FakeReply => ({
    status,
    delayMs: options.delayMs,
    headers: retryHeaders(options),
    body: {
      type: 'error',
      error: { type: ERROR_TYPES[status] ?? 'api_error', message: options.message ?? `anthropic fake: error ${status}` },
    },
  }),
  /** 529: Anthropic is overloaded (and says when to come back). */
  overloaded: (retryAfterSeconds?: number): FakeReply => anthropicReply.error(529, { message: 'Overloaded', retryAfterSeconds }),
};
