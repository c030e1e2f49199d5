// A model fake's answer as a provider streams it when the request says `stream: true`: the scripted
// completion (or message) cut into real SSE chunks, the chat-completions protocol's (text deltas, tool-call
// deltas by index, a finish chunk, a usage chunk when `stream_options.include_usage`, `[DONE]`) or
// Anthropic's (message_start, content blocks with text_delta and input_json_delta, message_delta with the
// usage, message_stop). A reply's `stream` options pace the chunks or stall them (a worker killed mid-stream).
import type { ServerResponse } from 'node:http';
import type { FakeReply } from './fake-http';

/** How a scripted answer streams: its pieces' size, the pause between chunks, a stall after some chunks. */
export interface StreamOptions {
  /** Characters per text or argument piece (default 4). */
  pieceChars?: number;
  /** Pause before each chunk after the first (default 0). */
  chunkDelayMs?: number;
  /** Sends this many chunks, then nothing more until the client goes away. */
  stallAfterChunks?: number;
}

const pieces = (text: string, size: number): string[] => {
  const out: string[] = [];
  for (let at = 0; at < text.length; at += size) out.push(text.slice(at, at + size));
  return out;
};

type Completion = {
  id: string;
  created: number;
  model: string;
  choices: {
    message: { content: string | null; tool_calls?: { id: string; function: { name: string; arguments: string } }[] };
    finish_reason: string;
  }[];
  usage: Record<string, number>;
};

/** The chat-completions chunks of a completion, each a `data:` line's JSON (then `[DONE]`). */
export function completionChunks(completion: Completion, size: number, includeUsage: boolean): string[] {
  const { message, finish_reason } = completion.choices[0];
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
    JSON.stringify({
      id: completion.id,
      object: 'chat.completion.chunk',
      created: completion.created,
      model: completion.model,
      choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
    });
  const chunks = [chunk({ role: 'assistant', content: '' })];
  for (const piece of pieces(message.content ?? '', size)) chunks.push(chunk({ content: piece }));
  (message.tool_calls ?? []).forEach((call, index) => {
    chunks.push(chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }] }));
    for (const piece of pieces(call.function.arguments, size))
      chunks.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
  });
  chunks.push(chunk({}, finish_reason));
  if (includeUsage)
    chunks.push(
      JSON.stringify({
        id: completion.id,
        object: 'chat.completion.chunk',
        created: completion.created,
        model: completion.model,
        choices: [],
        usage: completion.usage,
      }),
    );
  return chunks.map((data) => `data: ${data}\n\n`).concat('data: [DONE]\n\n');
}

type Message = {
  id: string;
  model: string;
  content: ({ type: 'text'; text: string } | { type: 'tool_use'; id: string; name: string; input: unknown })[];
  stop_reason: string;
  usage: { input_tokens: number; output_tokens: number };
};

/** Anthropic's Messages API events of a message, each `event:` and `data:`. */
export function messageEvents(message: Message, size: number): string[] {
  const event = (type: string, data: Record<string, unknown>) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
  const events = [
    event('message_start', {
      message: { ...message, content: [], stop_reason: null, stop_sequence: null, usage: { ...message.usage, output_tokens: 1 } },
    }),
  ];
  message.content.forEach((block, index) => {
    if (block.type === 'text') {
      events.push(event('content_block_start', { index, content_block: { type: 'text', text: '' } }));
      for (const text of pieces(block.text, size))
        events.push(event('content_block_delta', { index, delta: { type: 'text_delta', text } }));
    } else {
      events.push(event('content_block_start', { index, content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} } }));
      for (const partial_json of pieces(JSON.stringify(block.input ?? {}), size))
        events.push(event('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json } }));
    }
    events.push(event('content_block_stop', { index }));
  });
  events.push(
    event('message_delta', {
      delta: { stop_reason: message.stop_reason, stop_sequence: null },
      usage: { output_tokens: message.usage.output_tokens },
    }),
  );
  events.push(event('message_stop', {}));
  return events;
}

/**
 * Writes `chunks` as an event stream, paced and stalled as `options` say, telling `written` when each went
 * out; resolves when done or the client left.
 */
export async function writeStream(
  res: ServerResponse,
  chunks: string[],
  options: StreamOptions = {},
  written: (at: number) => void = () => undefined,
): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  let gone = false;
  res.once('close', () => (gone = true));
  for (const [index, chunk] of chunks.entries()) {
    if (gone) return;
    if (options.stallAfterChunks !== undefined && index >= options.stallAfterChunks) {
      await new Promise<void>((resolve) => (gone ? resolve() : res.once('close', () => resolve())));
      return;
    }
    if (index > 0 && options.chunkDelayMs) await new Promise((resolve) => setTimeout(resolve, options.chunkDelayMs));
    res.write(chunk);
    written(Date.now());
  }
  res.end();
}

/**
 * Past this many pieces a long answer's pieces grow: a 5 MiB answer in 4-character pieces would be 1.3 million
 * chunks built in the spec's own process, which then starves the API it shares that process with.
 */
const MAX_PIECES = 2000;

/** The characters a scripted answer streams: its texts and tool-call arguments, in either format. */
const textLength = (body: unknown): number => JSON.stringify(body ?? null).length;

/** The stream of a scripted 200 answer for `route`, the requested model in place of the echo. */
export function streamOf(answer: FakeReply, route: string, model: string, includeUsage: boolean): string[] {
  const body = { ...(answer.body as Record<string, unknown>), model } as unknown;
  const size = answer.stream?.pieceChars ?? Math.max(4, Math.ceil(textLength(body) / MAX_PIECES));
  return route.endsWith('/messages') ? messageEvents(body as Message, size) : completionChunks(body as Completion, size, includeUsage);
}
