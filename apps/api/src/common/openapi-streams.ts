// The OpenAPI of an SSE route: what it answers (events of a component, or a coded error before the stream
// starts) and where a reconnecting client resumes.
import { applyDecorators } from '@nestjs/common';
import { ApiHeader, ApiQuery, ApiResponse } from '@nestjs/swagger';
import { ref } from './openapi';

/** A route answering events (the component `schema` names) as text/event-stream, or a coded error (JSON) before the stream starts. */
export const ApiEventStream = (schema: string, ...errors: number[]) =>
  applyDecorators(
    ApiResponse({ status: 200, content: { 'text/event-stream': { schema: ref(schema) } }, description: 'Server-sent events' }),
    ...[401, ...errors].map((status) => ApiResponse({ status, schema: ref('Error') })),
  );

export const ApiResumePoint = () =>
  applyDecorators(
    ApiHeader({
      name: 'Last-Event-ID',
      required: false,
      description: 'Replay the events after this one (what EventSource sends on reconnecting)',
    }),
    ApiQuery({
      name: 'after',
      required: false,
      schema: { type: 'integer', minimum: 0 },
      description: 'Replay the events after this id (when the header cannot be set)',
    }),
  );
