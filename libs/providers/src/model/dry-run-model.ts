// The model of a dry run: answers without a provider. A structured step gets a value that follows its
// schema; an agent first calls each of its tools once with arguments that follow their parameters, then
// answers; anything else gets a line of text. Costs nothing: no tokens. A schema whose smallest value
// passes the example's byte budget (EXAMPLE_MAX_BYTES) fails the call with SCHEMA_TOO_LARGE, for good,
// instead of building gigabytes.
import type { ChatMessage } from '@app/contracts';
import { DomainError, EXAMPLE_MAX_BYTES, exampleOf } from '@app/domain';
import type { ModelRequest, ModelResponse } from './model-client';

export const DRY_RUN_MODEL = 'dry-run';

/** Tools a dry run leaves alone: `get_output` needs an output id of a real run. */
const NOT_CALLED = new Set(['get_output']);

/**
 * `variant`: which answer of the step this is (its execution in a graph), so repeated answers differ;
 * `maxBytes`: the most an answer or tool call's arguments may weigh (EXAMPLE_MAX_BYTES).
 */
export function dryRunAnswer(request: ModelRequest, variant: number, maxBytes = EXAMPLE_MAX_BYTES): ModelResponse {
  const toolsUsed = request.messages.some((message) => message.role === 'tool');
  const callable = (request.tools ?? []).filter((tool) => !NOT_CALLED.has(tool.name));
  const answer = (message: ChatMessage, finish_reason: string): ModelResponse => ({
    message,
    finish_reason,
    usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
    model: DRY_RUN_MODEL,
    duration_ms: 0,
  });
  if (callable.length && !toolsUsed) {
    const tool_calls = callable.map((tool, i) => ({
      id: `dry_run_${variant}_${i}`,
      name: tool.name,
      arguments: JSON.stringify(madeUp(tool.parameters, variant, maxBytes, `arguments for ${tool.name}`)),
    }));
    return answer({ role: 'assistant', content: null, tool_calls }, 'tool_calls');
  }
  const format = request.response_format;
  if (format?.type === 'json_schema')
    return answer(
      { role: 'assistant', content: JSON.stringify(madeUp(format.schema, variant, maxBytes, 'an answer to output_schema')) },
      'stop',
    );
  if (format?.type === 'json_object') return answer({ role: 'assistant', content: JSON.stringify({ dry_run: variant }) }, 'stop');
  return answer({ role: 'assistant', content: `Dry run ${variant}: ${request.model} would answer here.` }, 'stop');
}

/** exampleOf, its refusal saying what could not be made up. */
function madeUp(schema: unknown, variant: number, maxBytes: number, what: string): unknown {
  try {
    return exampleOf(schema, variant, maxBytes);
  } catch (error) {
    if (error instanceof DomainError)
      throw new DomainError(error.code, `A dry run cannot make up ${what}: ${error.message}`, error.details);
    throw error;
  }
}
