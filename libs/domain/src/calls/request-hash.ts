// The canonical hash of a model request: what decides that two calls asked the same thing, so that a replay
// may answer a call from a recorded one (and a response cache may, too). Everything the provider is given
// counts (provider, model, messages, tools, output schema, sampling parameters); what only spells the same
// request differently does not: key order, absent vs undefined vs null, an empty tool list vs none, the
// order tools are offered in, the whitespace and key order of tool-call arguments, and the ids providers
// give tool calls (each becomes its position in the request, the tool answers following it).
import { createHash } from 'node:crypto';
import type { ChatMessage, ToolSpec } from '@app/contracts';
import { canonicalJson } from '../tools/tool-manifest';

/** Bumped whenever what counts changes, so a hash is never compared with one of another meaning. */
const VERSION = 1;

/** A model request as the worker sends it, with the provider it goes to (after the default is applied). */
export interface HashedModelRequest {
  provider: string;
  model: string;
  messages: readonly ChatMessage[];
  tools?: readonly ToolSpec[] | null;
  response_format?: unknown;
  temperature?: number | null;
  max_tokens?: number | null;
}

/** sha256 (hex, 64 characters) of the request's canonical form. */
export function requestHash(request: HashedModelRequest): string {
  return createHash('sha256').update(canonicalRequest(request)).digest('hex');
}

/** The request's canonical text: equal for requests that differ only in what the header above lists. */
export function canonicalRequest(request: HashedModelRequest): string {
  const ids = new Map<string, string>();
  const idOf = (id: string): string => {
    if (!ids.has(id)) ids.set(id, `call_${ids.size}`);
    return ids.get(id)!;
  };
  const tools = [...(request.tools ?? [])]
    .map(({ name, description, parameters }) => ({ name, description, parameters }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return canonicalJson({
    v: VERSION,
    provider: request.provider,
    model: request.model,
    messages: request.messages.map((message) => canonicalMessage(message, idOf)),
    tools: tools.length ? tools : null,
    response_format: request.response_format ?? null,
    temperature: request.temperature ?? null,
    max_tokens: request.max_tokens ?? null,
  });
}

function canonicalMessage(message: ChatMessage, idOf: (id: string) => string): Record<string, unknown> {
  const calls = message.tool_calls ?? [];
  return {
    role: message.role,
    content: message.content ?? null,
    tool_calls: calls.length ? calls.map((call) => ({ id: idOf(call.id), name: call.name, arguments: argumentsOf(call.arguments) })) : null,
    tool_call_id: message.tool_call_id === undefined ? null : idOf(message.tool_call_id),
    name: message.name ?? null,
  };
}

/** Arguments the model wrote as JSON compare as the value they parse to; anything else as written. */
function argumentsOf(text: string): unknown {
  try {
    return { json: JSON.parse(text) as unknown };
  } catch {
    return { text };
  }
}
