// OpenAPI documentation of the definition bodies and of every other request body. The step and trigger
// schemas are the domain's own (the ones the validator applies and GET /step-types serves), and so is every
// body in REQUEST_BODIES: converted to OpenAPI 3.0 and registered once as components; routes point at them.
import { applyDecorators } from '@nestjs/common';
import { ApiBody, ApiHeader, ApiQuery, ApiResponse, type ReferenceObject, type SchemaObject } from '@nestjs/swagger';
import { STEP_TYPES, TRIGGER_TYPES, type StepType } from '@app/contracts';
import { GRAPH_SCHEMA, REQUEST_BODIES, STEP_SCHEMAS, TRIGGER_SCHEMAS, WORKFLOW_FIELDS_SCHEMA, type RequestBody } from '@app/domain';

type JsonSchema = Record<string, unknown>;

/** JSON Schema (draft 2020) to OpenAPI 3.0: `type: [x, 'null']` becomes `nullable`, numeric exclusive bounds become flags. */
export function toOpenApi(schema: JsonSchema): SchemaObject {
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'type' && Array.isArray(value)) {
      const types = value.filter((type) => type !== 'null');
      if (types.length === 1) out.type = types[0];
      if (types.length < value.length) out.nullable = true;
    } else if ((key === 'exclusiveMinimum' || key === 'exclusiveMaximum') && typeof value === 'number') {
      out[key === 'exclusiveMinimum' ? 'minimum' : 'maximum'] = value;
      out[key] = true;
    } else if (key === 'properties' && value && typeof value === 'object') {
      out.properties = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, toOpenApi(sub as JsonSchema)]));
    } else if (key === 'items' && value && typeof value === 'object' && !Array.isArray(value)) {
      out.items = toOpenApi(value as JsonSchema);
    } else {
      out[key] = value;
    }
  }
  return out as SchemaObject;
}

export const ref = (name: string): ReferenceObject => ({ $ref: `#/components/schemas/${name}` });

const STEP_COMPONENT: Record<StepType, string> = {
  custom_llm: 'CustomLlmStep',
  custom_agent: 'CustomAgentStep',
  stop_checker: 'StopCheckerStep',
  tool_executor: 'ToolExecutorStep',
  human_input: 'HumanInputStep',
  sub_workflow: 'SubWorkflowStep',
};

const uuid: SchemaObject = { type: 'string', format: 'uuid' };
const timestamp: SchemaObject = { type: 'string', format: 'date-time' };

function withType(schema: JsonSchema, types: readonly string[]): SchemaObject {
  const converted = toOpenApi(schema);
  return {
    ...converted,
    properties: { ...converted.properties, type: { type: 'string', enum: [...types] } },
    required: [...(converted.required ?? []), 'type'],
  };
}

const workflowFields: Record<string, SchemaObject> = {
  name: { type: 'string', minLength: 1, maxLength: 200 },
  description: { type: 'string', maxLength: 10000 },
  is_active: { type: 'boolean' },
  notify_url: { type: 'string', nullable: true, description: 'When a run ends, a signed summary is POSTed here' },
  notify_on_complete: { type: 'boolean' },
  notify_on_failure: { type: 'boolean' },
  output_history_size: {
    type: 'integer',
    minimum: 1,
    maximum: 100,
    description: "How many of a looping step's latest outputs history references reach (default 5)",
  },
  tool_drift: toOpenApi((WORKFLOW_FIELDS_SCHEMA.properties as Record<string, JsonSchema>).tool_drift),
};

/** Computed on every save, never sent: the agents' tools (name, description, parameters) and the sha256 of their canonical JSON. */
const toolManifestFields: Record<string, SchemaObject> = {
  tool_manifest: {
    type: 'array',
    nullable: true,
    readOnly: true,
    description: 'Sorted by name; a tool not registered at save time is {name, missing: true}',
    items: {
      type: 'object',
      properties: {
        name: { type: 'string' },
        description: { type: 'string' },
        parameters: { type: 'object' },
        missing: { type: 'boolean' },
      },
    },
  },
  tool_manifest_hash: { type: 'string', nullable: true, readOnly: true, pattern: '^[0-9a-f]{64}$' },
};

const workflowModel = (steps: SchemaObject, extra: Record<string, SchemaObject> = {}): SchemaObject => ({
  type: 'object',
  properties: {
    uuid,
    user_id: { type: 'string' },
    ...workflowFields,
    ...toolManifestFields,
    trigger_uuid: { ...uuid, nullable: true },
    version: { type: 'integer', readOnly: true, description: 'The version the definition is at (GET …/versions lists them)' },
    steps,
    ...extra,
    created_at: timestamp,
    updated_at: timestamp,
  },
});

/** Every component the routes refer to; create-app.ts adds them to the document. */
export function openApiComponents(): Record<string, SchemaObject> {
  const steps = Object.fromEntries(STEP_TYPES.map((type) => [STEP_COMPONENT[type], withType(STEP_SCHEMAS[type], [type])]));
  return {
    Error: {
      type: 'object',
      required: ['code', 'message', 'details', 'request_id'],
      properties: {
        code: { type: 'string', example: 'FORWARD_STEP_REFERENCE' },
        message: { type: 'string' },
        details: {
          type: 'object',
          properties: { field: { type: 'string', example: 'steps[0].system_prompt' } },
          additionalProperties: true,
        },
        request_id: { type: 'string' },
      },
    },
    ...steps,
    Step: {
      oneOf: STEP_TYPES.map((type) => ref(STEP_COMPONENT[type])),
      discriminator: {
        propertyName: 'type',
        mapping: Object.fromEntries(STEP_TYPES.map((type) => [type, ref(STEP_COMPONENT[type]).$ref])),
      },
    },
    NewStep: {
      allOf: [
        ref('Step'),
        {
          type: 'object',
          properties: { position: { type: 'integer', minimum: -1, description: '0-based place in the chain; -1 or absent appends' } },
        },
      ],
    },
    StepPatch: {
      type: 'object',
      description: "Any fields of the step's type but uuid and type; the merged step is validated again with the whole chain",
      additionalProperties: true,
    },
    StepOrder: {
      type: 'object',
      required: ['step_uuids'],
      properties: { step_uuids: { type: 'array', items: uuid, description: 'A permutation of the current steps' } },
    },
    // Every trigger type has the same fields today.
    Trigger: withType(TRIGGER_SCHEMAS.manual, TRIGGER_TYPES),
    TriggerPatch: { type: 'object', description: 'Any fields of the trigger but uuid', additionalProperties: true },
    NewWorkflow: {
      type: 'object',
      required: ['name'],
      properties: {
        uuid,
        ...workflowFields,
        steps: { type: 'array', items: ref('Step') },
        trigger: { allOf: [ref('Trigger')], nullable: true },
        graph: { allOf: [ref('Graph')], nullable: true },
      },
    },
    Graph: {
      ...toOpenApi({ ...GRAPH_SCHEMA, type: 'object' } as JsonSchema),
      description: 'Steps as nodes, edges as what runs next (absent or null: the steps run in order)',
    },
    WorkflowPatch: { type: 'object', minProperties: 1, additionalProperties: false, properties: workflowFields },
    WorkflowModel: workflowModel({ type: 'array', items: uuid, description: 'Step uuids in run order' }),
    WorkflowWithDetails: workflowModel(
      { type: 'array', items: ref('Step') },
      { trigger: { allOf: [ref('Trigger')], nullable: true }, graph: { allOf: [ref('Graph')], nullable: true } },
    ),
    WorkflowPage: {
      type: 'object',
      properties: {
        items: { type: 'array', items: ref('WorkflowModel') },
        total: { type: 'integer' },
        limit: { type: 'integer' },
        next_cursor: { type: 'string', nullable: true },
      },
    },
    ...versionComponents(),
    WorkflowDocument: {
      type: 'object',
      required: ['format', 'workflow'],
      properties: {
        format: { type: 'string', enum: ['stepwise.workflow/v1'] },
        workflow: ref('NewWorkflow'),
        tool_manifest: {
          ...toolManifestFields.tool_manifest,
          description: 'Written by export for readers; import computes the manifest from your registry',
        },
      },
      description: 'With uuids of one of your workflows it replaces that workflow whole; without, it creates one',
    },
    // Each body a route checks with one schema, shown as that schema.
    ...Object.fromEntries(REQUEST_BODIES.map((body) => [body.name, toOpenApi(body.schema)])),
    TypeInfo: {
      type: 'object',
      properties: {
        type: { type: 'string' },
        name: { type: 'string' },
        description: { type: 'string' },
        schema: { type: 'object', description: 'JSON Schema of the fields' },
      },
    },
  };
}

/** A workflow's versions, their diff and a restore's answer. */
function versionComponents(): Record<string, SchemaObject> {
  const version: SchemaObject = {
    type: 'object',
    properties: {
      workflow_uuid: uuid,
      version: { type: 'integer', minimum: 1 },
      created_at: timestamp,
      created_by: { type: 'string', description: 'The user whose save made it' },
      content_hash: { type: 'string', pattern: '^[0-9a-f]{64}$', description: "sha256 of the definition's canonical JSON" },
      change_description: { type: 'string', nullable: true },
      is_current: { type: 'boolean' },
    },
  };
  const change: SchemaObject = { type: 'object', properties: { field: { type: 'string' }, before: {}, after: {} } };
  const stepRef = { uuid, name: { type: 'string' }, type: { type: 'string' } } as const;
  return {
    WorkflowVersion: {
      allOf: [version, { type: 'object', properties: { definition: ref('WorkflowWithDetails') } }],
    },
    WorkflowVersionPage: {
      type: 'object',
      properties: {
        items: { type: 'array', items: version },
        total: { type: 'integer' },
        limit: { type: 'integer' },
        next_cursor: { type: 'string', nullable: true },
      },
    },
    WorkflowVersionDiff: {
      type: 'object',
      properties: {
        from: { type: 'integer' },
        to: { type: 'integer' },
        workflow_fields: { type: 'array', items: change, description: "The workflow's own fields that differ (name, trigger, graph…)" },
        steps_added: { type: 'array', items: { type: 'object', properties: stepRef } },
        steps_removed: { type: 'array', items: { type: 'object', properties: stepRef } },
        steps_changed: {
          type: 'array',
          items: { type: 'object', properties: { ...stepRef, fields: { type: 'array', items: change } } },
          description: 'Steps in both (matched by uuid) whose fields differ; `position` when a step moved',
        },
      },
    },
    WorkflowVersionRestored: {
      type: 'object',
      properties: {
        restored_from: { type: 'integer' },
        version: { type: 'integer', description: 'The version the workflow is at now' },
        workflow: ref('WorkflowWithDetails'),
      },
    },
  };
}

/** The request body of a route: the domain's body its service parses (the component is its schema), or a component by name. */
export const ApiJsonBody = (body: string | RequestBody<unknown>) =>
  typeof body === 'string' ? ApiBody({ schema: ref(body) }) : ApiBody({ schema: ref(body.name), required: body.required });

/** A success answer by component name (or a schema) plus the other answers a route can give (errors are coded Errors). */
export function ApiAnswers(status: number, body: string | SchemaObject | null, ...errors: number[]) {
  const schema = typeof body === 'string' ? ref(body) : (body ?? undefined);
  return applyDecorators(
    ApiResponse({ status, ...(schema ? { schema } : {}) }),
    // Another success status (a repeat answering 200 instead of 201) has the same body; the rest are coded errors.
    ...[401, ...errors].map((code) =>
      ApiResponse({ status: code, ...(code >= 400 ? { schema: ref('Error') } : schema ? { schema } : {}) }),
    ),
  );
}

export const ApiPaged = () =>
  applyDecorators(
    ApiQuery({ name: 'limit', required: false, schema: { type: 'integer', minimum: 1, maximum: 200, default: 50 } }),
    ApiQuery({ name: 'cursor', required: false, schema: { type: 'string' }, description: 'The next_cursor of the page before' }),
    ApiQuery({
      name: 'offset',
      required: false,
      deprecated: true,
      schema: { type: 'integer', minimum: 0, default: 0 },
      description: 'Rows to skip (ignored with a cursor): use cursor',
    }),
  );

/** The header that makes a start or a resume safe to repeat. */
export const ApiIdempotencyKey = () =>
  ApiHeader({
    name: 'Idempotency-Key',
    required: false,
    schema: { type: 'string', maxLength: 255 },
    description: 'The same key gives the same run (200), never a second one',
  });

/** Query filters of a list, each a plain string. */
export const ApiFilters = (...names: [string, SchemaObject][]) =>
  applyDecorators(...names.map(([name, schema]) => ApiQuery({ name, required: false, schema })));
