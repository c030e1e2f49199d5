// The MCP workflow tools (list, get, create, update, validate ...) over the services the REST controllers call.
import {
  getWorkflowTool,
  objectSchema,
  outputOf,
  pageOf,
  PAGINATION_ARGUMENTS,
  RUN_OUTPUT,
  uuidArgument,
  WORKFLOW_OUTPUT,
  type JsonSchema,
  type StepwiseTool,
  type WorkflowsService,
} from '@app/definitions';
import { GRAPH_SCHEMA, SCHEDULE_SCHEMA, STEP_SCHEMAS, TRIGGER_SCHEMAS, WORKFLOW_FIELDS_SCHEMA } from '@app/domain';
import { paginationOf } from '../common/pagination';
import type { SchedulesService } from '../schedules/schedules.service';

/** A step of any type: the schema the validator applies to that type, its `type` required to tell them apart. */
const withTypeRequired = (schema: JsonSchema): JsonSchema => ({ ...schema, required: [...(schema.required as string[]), 'type'] });

/** POST /workflows' body: the workflow fields, its steps, trigger and graph, with the domain's own schemas. */
export const NEW_WORKFLOW_SCHEMA: JsonSchema = {
  ...WORKFLOW_FIELDS_SCHEMA,
  additionalProperties: false,
  required: ['name'],
  properties: {
    ...(WORKFLOW_FIELDS_SCHEMA.properties as JsonSchema),
    steps: {
      type: 'array',
      description:
        'In run order; get_step_type describes the fields of each type. <<step_output.{uuid}>> reads an earlier step (give steps a uuid to refer to them)',
      items: { anyOf: Object.values(STEP_SCHEMAS).map(withTypeRequired) },
    },
    trigger: { anyOf: [...Object.values(TRIGGER_SCHEMAS).map((schema) => ({ ...schema, required: ['type'] })), { type: 'null' }] },
    graph: GRAPH_SCHEMA,
  },
};

const scheduleProperties = SCHEDULE_SCHEMA.properties as JsonSchema;

export function workflowTools(workflows: WorkflowsService, schedules: SchedulesService): StepwiseTool[] {
  return [
    {
      name: 'create_workflow',
      title: 'Create a workflow',
      description:
        'Create a workflow: a chain of steps (LLM calls, agents with tools, stop checkers, human input) or a graph of them. Answers the workflow with its steps.',
      inputSchema: NEW_WORKFLOW_SCHEMA,
      outputSchema: outputOf(WORKFLOW_OUTPUT),
      parsedByService: true,
      run: (userId, args) => workflows.create(userId, args),
    },
    {
      name: 'list_workflows',
      title: 'List workflows',
      description: 'Your workflows, newest first, a page at a time (steps as uuids).',
      inputSchema: objectSchema(PAGINATION_ARGUMENTS),
      outputSchema: outputOf(pageOf(WORKFLOW_OUTPUT)),
      run: (userId, args) => workflows.list(userId, paginationOf(args)),
    },
    getWorkflowTool(workflows),
    {
      name: 'schedule_workflow',
      title: 'Schedule a workflow',
      description:
        'Run a workflow now (immediate), once at run_at (scheduled) or on a cron_expression or interval_seconds (recurring), with this trigger_output. Answers the schedule (next run times) or, for immediate, the run.',
      inputSchema: objectSchema({ workflow_uuid: uuidArgument('The workflow to run'), ...scheduleProperties }, [
        'workflow_uuid',
        ...(SCHEDULE_SCHEMA.required as string[]),
      ]),
      outputSchema: outputOf({
        type: 'object',
        properties: { id: { type: 'string' }, schedule_type: { type: 'string' }, run: RUN_OUTPUT },
      }),
      run: (userId, { workflow_uuid, ...schedule }) => schedules.create(userId, workflow_uuid as string, schedule),
    },
  ];
}
