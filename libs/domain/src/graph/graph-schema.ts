import { DEFAULT_GRAPH_TIMEOUT_SECONDS, DEFAULT_IDLE_TIMEOUT_SECONDS, DEFAULT_MAX_STEPS, EDGE_CONDITION_TYPES } from '@app/contracts';

/** The JSON Schema of a workflow's `graph` (null or absent: an ordered chain). */
export const GRAPH_SCHEMA: Record<string, unknown> = {
  type: ['object', 'null'],
  title: 'Graph',
  description: 'Steps as nodes, edges as what runs next; absent or null: the steps run in order',
  additionalProperties: false,
  required: ['entry_node', 'edges'],
  properties: {
    entry_node: { type: 'string', format: 'uuid', description: 'The step a run starts with' },
    max_steps: {
      type: 'integer',
      minimum: 1,
      maximum: 200,
      default: DEFAULT_MAX_STEPS,
      description: 'Guard rail: step executions a run may make before it fails',
    },
    idle_timeout_seconds: {
      type: 'integer',
      minimum: 1,
      maximum: 31_536_000,
      default: DEFAULT_IDLE_TIMEOUT_SECONDS,
      description: 'Conversational runs: seconds without a message before the conversation closes',
    },
    timeout_seconds: {
      type: 'integer',
      minimum: 1,
      maximum: 31_536_000,
      default: DEFAULT_GRAPH_TIMEOUT_SECONDS,
      description: 'Guard rail: seconds the walk may take before the run fails (time waiting for people not counted)',
    },
    human_handoff_step_uuid: {
      type: 'string',
      format: 'uuid',
      description: 'A human_input step of the graph: a run hitting a guard rail waits there for a person instead of failing',
    },
    is_conversational: { type: 'boolean', default: false, description: 'A run is a conversation that stays open between user messages' },
    edges: {
      type: 'array',
      maxItems: 1000,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['source_step_uuid', 'condition_type'],
        properties: {
          uuid: { type: 'string', format: 'uuid', description: 'Given by the server when absent' },
          source_step_uuid: { type: 'string', format: 'uuid' },
          target_step_uuid: { type: ['string', 'null'], format: 'uuid', default: null, description: 'null: the edge ends the run (END)' },
          condition_type: { enum: [...EDGE_CONDITION_TYPES] },
          condition_value: {
            type: ['string', 'null'],
            minLength: 1,
            maxLength: 200,
            default: null,
            description:
              'CONDITIONAL: the choice that takes the edge (an agent picks a step name or END; after a tool executor, the tool name)',
          },
          conditions: {
            type: ['object', 'null'],
            description: 'Data conditions on the source step output: the filter-rule language (all/any, path, operator, value)',
          },
          priority: { type: ['integer', 'null'], description: 'Higher first when several edges fire' },
        },
      },
    },
  },
};
