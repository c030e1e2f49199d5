// The bodies of the assistant's routes, each one JSON Schema (REQUEST_BODIES: the OpenAPI document shows them as
// they are checked). What a schema cannot say (a source workflow the user owns, a provider whose key is set) the
// service checks after.
import { ASSISTANT_MODES, MODEL_PROVIDERS, type AssistantMode, type ModelProvider } from '@app/contracts';
import { DomainError, ErrorCode } from '../errors';
import { requestBody } from '../request-body';

const NOT_BLANK = '\\S';

export interface NewAssistantSession {
  mode: AssistantMode;
  source_workflow_uuid: unknown;
  provider: ModelProvider | null;
  model: string | null;
}

export const ASSISTANT_SESSION_BODY = requestBody<NewAssistantSession>(
  'NewAssistantSession',
  {
    type: 'object',
    required: ['mode'],
    additionalProperties: false,
    properties: {
      mode: { type: 'string', enum: [...ASSISTANT_MODES] },
      // Any value: the service says what an edit or a copy needs, and that a create takes none.
      source_workflow_uuid: { description: 'edit and copy: the workflow to start from' },
      provider: {
        type: ['string', 'null'],
        enum: [...MODEL_PROVIDERS, null],
        description: 'The model provider the session asks (default DEFAULT_PROVIDER; one whose key is set)',
      },
      model: {
        type: ['string', 'null'],
        minLength: 1,
        maxLength: 191,
        pattern: NOT_BLANK,
        description: 'The model the session asks (default ASSISTANT_MODEL)',
      },
    },
  },
  (body) => ({
    mode: body.mode as AssistantMode,
    source_workflow_uuid: body.source_workflow_uuid,
    provider: (body.provider as ModelProvider | undefined) ?? null,
    model: (body.model as string | undefined) ?? null,
  }),
  { absentIsEmpty: true },
);

export const ASSISTANT_MESSAGE_BODY = requestBody(
  'AssistantMessage',
  {
    type: 'object',
    required: ['text'],
    properties: {
      text: {
        type: 'string',
        minLength: 1,
        pattern: NOT_BLANK,
        description: 'At most ASSISTANT_MESSAGE_MAX_CHARS characters (20,000 unless the operator set it)',
      },
    },
  },
  (body) => body.text as string,
  { absentIsEmpty: true },
);

/** Whether `text` has more than `max` characters (code points, as JSON Schema's maxLength counts them), counting no further. */
function longerThan(text: string, max: number): boolean {
  if (text.length <= max) return false;
  let chars = 0;
  for (let i = 0; i < text.length; i++) {
    if (++chars > max) return true;
    const code = text.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) i++;
  }
  return false;
}

/**
 * A message's text, at most `maxChars` characters (ASSISTANT_MESSAGE_MAX_CHARS): it enters the session's
 * Temporal history and its conversation, which every later turn rewrites and sends to the model.
 */
export function parseAssistantMessage(body: unknown, maxChars: number): string {
  const text = ASSISTANT_MESSAGE_BODY.parse(body);
  if (longerThan(text, maxChars))
    throw new DomainError(ErrorCode.ValidationFailed, `text must be at most ${maxChars} characters (ASSISTANT_MESSAGE_MAX_CHARS)`, {
      field: 'text',
      max_chars: maxChars,
    });
  return text;
}
