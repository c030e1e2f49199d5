// OpenAPI components of the assistant's answers: sessions and the SSE events (its bodies are the domain's own, REQUEST_BODIES).
import type { SchemaObject } from '@nestjs/swagger';
import { ASSISTANT_EVENT_TYPES, ASSISTANT_MODES, ASSISTANT_STAGES } from '@app/contracts';
import { ref } from '../common/openapi';

const uuid: SchemaObject = { type: 'string', format: 'uuid' };
const stage: SchemaObject = { type: 'string', enum: [...ASSISTANT_STAGES] };

export function assistantComponents(): Record<string, SchemaObject> {
  return {
    AssistantSession: {
      type: 'object',
      properties: {
        uuid,
        mode: { type: 'string', enum: [...ASSISTANT_MODES] },
        source_workflow_uuid: { ...uuid, nullable: true },
        provider: { type: 'string', nullable: true },
        model: { type: 'string', nullable: true },
        stage,
        previous_stage: { ...stage, nullable: true },
        intent_summary: { type: 'string' },
        conversations: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              role: { type: 'string', enum: ['user', 'assistant'] },
              text: { type: 'string' },
              turn: { type: 'integer' },
              at: { type: 'string', format: 'date-time' },
            },
          },
        },
        pending_questions: { type: 'array', items: { type: 'string' } },
        workflow_uuid: { ...uuid, nullable: true, description: 'The workflow the session saved: the next message edits it' },
        final_error_message: { type: 'string', nullable: true },
        is_open: {
          type: 'boolean',
          description:
            'The session takes the next message; false once the workflow it edits was deleted, it idled past a day or took its 200 messages',
        },
        tokens: {
          type: 'object',
          properties: { prompt: { type: 'integer' }, completion: { type: 'integer' }, total: { type: 'integer' } },
        },
        created_at: { type: 'string', format: 'date-time' },
        updated_at: { type: 'string', format: 'date-time' },
      },
    },
    AssistantSessionPage: {
      type: 'object',
      properties: {
        items: { type: 'array', items: ref('AssistantSession') },
        total: { type: 'integer' },
        limit: { type: 'integer' },
        next_cursor: { type: 'string', nullable: true },
      },
    },
    AssistantEvent: {
      type: 'object',
      description:
        "One SSE `data:` line (its `id:` is the event's place in the session); the stream ends after the turn's event with is_final",
      required: ['session_id', 'response_type', 'is_final'],
      properties: {
        session_id: uuid,
        response_type: { type: 'string', enum: [...ASSISTANT_EVENT_TYPES] },
        is_final: { type: 'boolean' },
        status_change: {
          type: 'object',
          properties: { previous_stage: { ...stage, nullable: true }, current_stage: stage, node_name: { type: 'string' } },
        },
        message: { type: 'string' },
        workflow: { type: 'object', description: 'The workflow JSON as the model wrote it' },
        workflow_uuid: { ...uuid, description: 'Once saved' },
        saved_workflow: { type: 'object', description: 'The workflow as saved (GET /workflows/{uuid})' },
        is_edit: {
          type: 'boolean',
          description: "Once saved: the save replaced the workflow (an edit session, or a turn after the session's first save)",
        },
        issues: {
          type: 'array',
          items: { type: 'object', properties: { code: { type: 'string' }, field: { type: 'string' }, message: { type: 'string' } } },
          description: 'Back to generation after validation: what the model is told to fix',
        },
        dry_run: {
          type: 'object',
          properties: {
            run_uuid: uuid,
            status: { type: 'string' },
            error_message: { type: 'string', nullable: true },
            dataset: {
              type: 'object',
              description:
                "When the edited workflow has a dataset: the case whose trigger data the dry run used, and its assertions' results (reported, not enforced; judge assertions skipped)",
              properties: {
                dataset: { type: 'string' },
                case: { type: 'string' },
                passed: { type: 'integer' },
                failed: { type: 'integer' },
                skipped: { type: 'integer' },
                assertions: { type: 'array', items: { type: 'object' } },
              },
            },
          },
          description: 'After the dry run: the run and how it ended',
        },
        error: {
          type: 'object',
          properties: {
            error_code: {
              type: 'string',
              description:
                'CORRECTIONS_EXHAUSTED, PROVIDER_ERROR, WORKFLOW_CHANGED, PROCESSING_ERROR (recoverable); SOURCE_DELETED, SESSION_IDLE, SESSION_FULL (the session ends)',
            },
            message: { type: 'string' },
            details: {},
            is_recoverable: {
              type: 'boolean',
              description: 'The session stays open: the next message goes on from the intent and the last attempt',
            },
          },
        },
      },
    },
  };
}
