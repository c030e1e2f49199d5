// The step types, each step type's details and the tools agents may use.
import { STEP_TYPES } from '@app/contracts';
import { notFound, STEP_TYPE_CATALOG, stepFields, stepTypeDetails } from '@app/domain';
import type { ToolListing } from '../agent-tools/tool-listing';
import { objectSchema, outputOf, type StepwiseTool } from './stepwise-tool';

const FIELD_OUTPUT = {
  type: 'object',
  required: ['name', 'type', 'required'],
  properties: {
    name: { type: 'string' },
    type: { type: 'string' },
    required: { type: 'boolean' },
    enum_values: { type: 'array' },
    description: { type: 'string' },
  },
};

export function catalogTools(listing: ToolListing): StepwiseTool[] {
  return [
    {
      name: 'list_step_types',
      title: 'List step types',
      description: 'The step types a workflow may use, each with what it does and its required fields; get_step_type gives every field.',
      inputSchema: objectSchema({}),
      outputSchema: outputOf({
        type: 'object',
        required: ['step_types'],
        properties: {
          step_types: { type: 'array', items: { type: 'object', required: ['type', 'name', 'description', 'required_fields'] } },
        },
      }),
      run: async () => ({
        step_types: STEP_TYPE_CATALOG.map(({ type, name, description }) => ({
          type,
          name,
          description,
          required_fields: stepFields(type)
            .filter((field) => field.required)
            .map((field) => field.name),
        })),
      }),
    },
    {
      name: 'get_step_type',
      title: 'Get a step type',
      description: 'Every field of a step type (type, required, enum values, default, an example), its JSON Schema and an example step.',
      inputSchema: objectSchema({ type: { enum: [...STEP_TYPES] } }, ['type']),
      outputSchema: outputOf({
        type: 'object',
        required: ['type', 'name', 'description', 'fields', 'example', 'schema'],
        properties: {
          type: { type: 'string' },
          fields: { type: 'array', items: FIELD_OUTPUT },
          example: { type: 'object' },
          schema: { type: 'object' },
        },
      }),
      run: async (_userId, args) => stepTypeDetails(args.type as string) ?? Promise.reject(notFound('Step type', args.type as string)),
    },
    {
      name: 'list_tools',
      title: 'List tools',
      description:
        "The tools an agent step may name in its tools: built-in ones, the ones you registered, and your MCP servers' tools ('<server>.<tool>'), each with its parameters.",
      inputSchema: objectSchema({}),
      outputSchema: outputOf({
        type: 'object',
        required: ['tools'],
        properties: {
          tools: {
            type: 'array',
            items: {
              type: 'object',
              required: ['name', 'description', 'parameters', 'source'],
              properties: { name: { type: 'string' }, source: { type: 'string' } },
            },
          },
        },
      }),
      run: async (userId) => ({ tools: await listing.list(userId) }),
    },
  ];
}
