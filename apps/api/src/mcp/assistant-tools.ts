// The assistant over MCP: start a session, send it the person's message (the call answers once the turn
// ended, with its events), read it. Every answer says whether the session is open: after a save the next
// message edits the saved workflow, after a failure a message can fix the next message goes on from it.
import { ASSISTANT_MODES, MODEL_PROVIDERS } from '@app/contracts';
import { objectSchema, outputOf, uuidArgument, type JsonSchema, type StepwiseTool } from '@app/definitions';
import type { AssistantTurns } from '../assistant/assistant-turns';

/** A session as GET /assistant/sessions/{uuid} answers it; only what a caller relies on is pinned down. */
const SESSION_OUTPUT: JsonSchema = {
  type: 'object',
  required: ['uuid', 'mode', 'stage', 'is_open'],
  properties: {
    uuid: { type: 'string' },
    mode: { enum: [...ASSISTANT_MODES] },
    stage: { type: 'string' },
    is_open: { type: 'boolean', description: 'The session takes the next message (after a save, that message edits workflow_uuid)' },
    workflow_uuid: { type: ['string', 'null'], description: 'The workflow the session saved' },
    intent_summary: { type: 'string' },
    final_error_message: { type: ['string', 'null'] },
  },
};

const sessionUuid = { session_uuid: uuidArgument('The assistant session') };

export function assistantTools(turns: AssistantTurns): StepwiseTool[] {
  const { assistant } = turns;
  return [
    {
      name: 'start_assistant_session',
      title: 'Start an assistant session',
      description:
        'Start a conversation with the assistant that writes workflows: create one from nothing, edit one of yours in place, or copy one. Then send_assistant_message with what the person wants.',
      inputSchema: objectSchema(
        {
          mode: { enum: [...ASSISTANT_MODES] },
          source_workflow_uuid: uuidArgument('edit and copy: the workflow to start from'),
          provider: { enum: [...MODEL_PROVIDERS], description: "Default: the server's DEFAULT_PROVIDER" },
          model: { type: 'string', minLength: 1, maxLength: 191, description: "Default: the server's ASSISTANT_MODEL" },
        },
        ['mode'],
      ),
      outputSchema: outputOf(SESSION_OUTPUT),
      parsedByService: true,
      run: (userId, args) => assistant.create(userId, args),
    },
    {
      name: 'send_assistant_message',
      title: 'Send a message to an assistant session',
      description:
        "Send the person's message and wait for the turn to end: a question back (MESSAGE), the workflow written, checked, dry-run and saved (WORKFLOW, with is_edit when it replaced the one saved before), or an ERROR saying is_recoverable. Answers the turn's events and the session; while is_open, send the next message to change what was built or to fix what failed.",
      inputSchema: objectSchema({ ...sessionUuid, text: { type: 'string', minLength: 1, maxLength: assistant.messageMaxChars } }, [
        'session_uuid',
        'text',
      ]),
      outputSchema: outputOf({
        type: 'object',
        required: ['turn_finished', 'events', 'session'],
        properties: {
          turn_finished: {
            type: 'boolean',
            description: 'false: no event for SSE_IDLE_SECONDS, the turn goes on (read it with get_assistant_session)',
          },
          events: { type: 'array', items: { type: 'object', required: ['response_type', 'is_final'] } },
          session: SESSION_OUTPUT,
        },
      }),
      run: (userId, { session_uuid, ...body }) => turns.converse(userId, session_uuid as string, body),
    },
    {
      name: 'get_assistant_session',
      title: 'Get an assistant session',
      description:
        'An assistant session: its stage, what it understood, the conversation, the workflow it saved, and whether it is open (takes the next message).',
      inputSchema: objectSchema(sessionUuid, ['session_uuid']),
      outputSchema: outputOf(SESSION_OUTPUT),
      run: (userId, args) => assistant.get(userId, args.session_uuid as string),
    },
  ];
}
