import { END_TOOL_NAME, type ToolSpec } from '@app/contracts';

/** Tools every agent may use without registering them; their names are reserved in the registry. */
export const BUILTIN_TOOLS: ToolSpec[] = [
  {
    name: 'get_output',
    description: 'Fetch the full data of an earlier output by its output_id (you are given {output_id, summary} references).',
    parameters: { type: 'object', additionalProperties: false, required: ['output_id'], properties: { output_id: { type: 'string' } } },
  },
  {
    name: 'http_request',
    description: 'Make an HTTP request and read the answer (status, content_type, body).',
    parameters: {
      type: 'object',
      additionalProperties: false,
      required: ['url'],
      properties: {
        url: { type: 'string', description: 'http(s) URL' },
        method: { type: 'string', enum: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'] },
        headers: { type: 'object', additionalProperties: { type: 'string' } },
        body: { description: 'JSON body (objects are sent as JSON, strings as text)' },
      },
    },
  },
];

/** Offered to every agent of a conversational workflow; calling it closes the conversation after the turn's reply. */
export const END_TOOL: ToolSpec = {
  name: END_TOOL_NAME,
  description:
    'End the conversation: call it when the user is done or says goodbye, then give your last reply. The conversation closes after this turn.',
  parameters: {
    type: 'object',
    additionalProperties: false,
    properties: { reason: { type: 'string', description: 'Why the conversation ends' } },
  },
};

export const BUILTIN_TOOL_NAMES = [...BUILTIN_TOOLS, END_TOOL].map((tool) => tool.name);

/**
 * The built-ins that change nothing outside the run when called (a replay may call them again): reading an
 * output, ending the conversation. `http_request` may POST, so it is not one of them.
 */
export const SIDE_EFFECT_FREE_BUILTINS: readonly string[] = ['get_output', END_TOOL.name];

/** OpenAI function names: letters, digits, _ and -, at most 64. */
export const TOOL_NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
