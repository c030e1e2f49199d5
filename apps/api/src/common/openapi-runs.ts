// OpenAPI components of runs, tools, schedules and webhook deliveries: what those routes answer. What they
// take is the domain's request bodies (openapi.ts registers REQUEST_BODIES).
import type { SchemaObject } from '@nestjs/swagger';
import { RUN_STATUSES } from '@app/contracts';
import { ref } from './openapi';

const uuid: SchemaObject = { type: 'string', format: 'uuid' };
const timestamp: SchemaObject = { type: 'string', format: 'date-time' };
const nullable = (schema: SchemaObject): SchemaObject => ({ ...schema, nullable: true });
const tokens: SchemaObject = {
  type: 'object',
  properties: { prompt: { type: 'integer' }, completion: { type: 'integer' }, total: { type: 'integer' } },
};
const any: SchemaObject = { description: 'Any JSON value' };
const cost = (of: string): SchemaObject =>
  nullable({
    type: 'number',
    description: `US dollars ${of} at the configured prices (MODEL_PRICES_FILE); null when a model has no price`,
  });
/** GET /usage: the figures of a group of completed model calls, the whole range and by day, workflow and model. */
function usage(): SchemaObject {
  const figures = {
    calls: { type: 'integer' },
    prompt_tokens: { type: 'integer' },
    completion_tokens: { type: 'integer' },
    cached_tokens: { type: 'integer', description: 'Of the prompt tokens, those served from the provider cache' },
    total_tokens: { type: 'integer' },
    cost: { type: 'number', description: 'US dollars of the priced calls' },
    unpriced_calls: { type: 'integer', description: 'Calls whose model has no price: cost leaves them out' },
  } satisfies Record<string, SchemaObject>;
  const group = (key: Record<string, SchemaObject>): SchemaObject => ({
    type: 'array',
    items: { type: 'object', properties: { ...key, ...figures } },
  });
  return {
    type: 'object',
    properties: {
      from: { type: 'string', format: 'date' },
      to: { type: 'string', format: 'date' },
      currency: { type: 'string', enum: ['USD'] },
      total: { type: 'object', properties: figures },
      by_day: group({ day: { type: 'string', format: 'date' } }),
      by_workflow: group({ workflow_uuid: uuid, workflow_name: { type: 'string' } }),
      by_model: group({ provider: nullable({ type: 'string' }), model: { type: 'string' } }),
    },
  };
}

/** GET /usage/limits: the limits in dollars (null: none) and what the ledger holds now. */
function spendLimits(): SchemaObject {
  const dollars = nullable({ type: 'number' });
  const limits: SchemaObject = { type: 'object', properties: { daily_usd: dollars, monthly_usd: dollars } };
  const held = (key: string): SchemaObject => ({
    type: 'object',
    properties: {
      [key]: { type: 'string' },
      spent: { type: 'number' },
      reserved: { type: 'number', description: 'The worst case of calls in flight' },
    },
  });
  return {
    type: 'object',
    properties: { operator: limits, own: limits, applied: limits, today: held('day'), this_month: held('month') },
  };
}

const page = (item: string): SchemaObject => ({
  type: 'object',
  properties: {
    items: { type: 'array', items: ref(item) },
    total: { type: 'integer' },
    limit: { type: 'integer' },
    next_cursor: { type: 'string', nullable: true, description: 'Pass as cursor for the next page; null on the last' },
  },
});

const output: SchemaObject = {
  type: 'object',
  properties: {
    uuid,
    raw_data: any,
    summary: { type: 'string' },
    markdown_representation: nullable({ type: 'string' }),
    size_bytes: { type: 'integer' },
    created_at: timestamp,
  },
};

const call = (extra: Record<string, SchemaObject>): SchemaObject => ({
  type: 'object',
  properties: {
    uuid,
    attempt: { type: 'integer' },
    status: { type: 'string', enum: ['running', 'completed', 'failed'] },
    error_message: nullable({ type: 'string' }),
    duration_ms: nullable({ type: 'integer' }),
    started_at: timestamp,
    finished_at: nullable(timestamp),
    ...extra,
  },
});

const runSummary: SchemaObject = {
  type: 'object',
  properties: {
    uuid,
    workflow_uuid: uuid,
    workflow_name: { type: 'string' },
    workflow_version: nullable({ type: 'integer', description: 'The version of the workflow the run ran (null: an unsaved definition)' }),
    user_id: { type: 'string' },
    schedule_id: nullable({ type: 'string' }),
    parent_run_uuid: nullable({
      ...uuid,
      description: 'The run this one resumes, or (with parent_step_uuid) whose sub_workflow step started it',
    }),
    parent_step_uuid: nullable({ ...uuid, description: 'A run a sub_workflow step started: that step' }),
    resumed_from_step_uuid: nullable(uuid),
    dry_run: { type: 'boolean' },
    budget: nullable({
      type: 'object',
      properties: {
        max_tokens: { type: 'integer' },
        paused_at_tokens: nullable({ type: 'integer' }),
        max_cost: { type: 'number', description: 'Dollars; each model call reserves its worst case against it' },
        paused_at_cost: nullable({ type: 'number' }),
      },
      description: 'paused_at_tokens or paused_at_cost: the run waits for an approval',
    }),
    spend_pause: nullable({
      type: 'object',
      properties: {
        code: { type: 'string', enum: ['SPEND_LIMIT_REACHED'] },
        period: { type: 'string', enum: ['day', 'month'] },
        limit: { type: 'number' },
        spent: { type: 'number' },
        resets_at: { type: 'string', format: 'date-time' },
      },
      description:
        "The run waits (awaiting_input) because a model call found no room under its user's spend limit; it goes on by itself at resets_at, or at once when PUT /usage/limits raises the limit",
    }),
    status: { type: 'string', enum: [...RUN_STATUSES] },
    error_message: nullable({ type: 'string' }),
    notification: nullable({ type: 'object', description: 'The latest attempt to POST the run-end notification' }),
    tool_drift: nullable({ type: 'object', description: '{tools: [{name, change, fields}], saved_hash, current_hash}' }),
    replay_of: nullable({ ...uuid, description: 'A replay (POST /runs/{uuid}/replay): the run it replays' }),
    replay_offline: { type: 'boolean', description: 'A replay whose calls not in the record went to the dry-run model' },
    messages: { type: 'array', items: { type: 'object' }, description: 'Conversational runs: the transcript' },
    tokens,
    cost: cost('its completed model calls cost, summed when the run ends (null while it runs)'),
    started_at: timestamp,
    finished_at: nullable(timestamp),
    duration_ms: nullable({ type: 'integer' }),
    temporal: {
      type: 'object',
      properties: {
        workflow_id: { type: 'string' },
        ui_url: { type: 'string', description: 'The execution in the Temporal Web UI' },
        open_in_ui_path: {
          type: 'string',
          description: "This API's page that takes the key once (the codec cookie) and opens ui_url with the payloads decoded",
        },
      },
    },
  },
};

const stepInstance: SchemaObject = {
  type: 'object',
  description: 'A step of the run; a looping or graph step also has loop, iteration_count and its iterations (each a step instance)',
  properties: {
    uuid,
    step_definition_uuid: uuid,
    name: { type: 'string' },
    type: { type: 'string' },
    position: { type: 'integer' },
    status: { type: 'string', enum: ['pending', 'running', 'awaiting_input', 'completed', 'failed', 'skipped', 'cancelled'] },
    carried_from_run_uuid: nullable(uuid),
    attempts: { type: 'integer' },
    input_data: any,
    messages: { type: 'array', items: { type: 'object' }, description: 'The conversation with the model (chat messages)' },
    output: { allOf: [ref('Output')], nullable: true },
    error_message: nullable({ type: 'string' }),
    tokens,
    cost: cost('its completed model calls cost, summed when the step ends'),
    model_calls: {
      type: 'array',
      items: call({
        turn: { type: 'integer' },
        provider: nullable({
          type: 'string',
          description: 'openai, anthropic, openrouter or dry-run; null on calls recorded before providers were',
        }),
        model: { type: 'string' },
        request: any,
        response: any,
        tokens,
        cached_tokens: { type: 'integer', description: 'Of the prompt tokens, those the provider served from its prompt cache' },
        cost: cost('the call cost'),
        cached_from: nullable({
          ...uuid,
          description: 'Answered by the response cache (the step declares cache): the call whose answer it reused',
        }),
      }),
    },
    tool_calls: {
      type: 'array',
      items: call({
        tool_call_id: { type: 'string' },
        tool_name: {
          type: 'string',
          description: "The step's name for the tool: a workflow tool's is workflow:<uuid>, its output {run_uuid, output}",
        },
        mcp_server: { type: 'string', nullable: true, description: 'The MCP server that answered (tool_name is then <server>.<tool>)' },
        input: any,
        output: any,
      }),
    },
    started_at: nullable(timestamp),
    finished_at: nullable(timestamp),
    duration_ms: nullable({ type: 'integer' }),
    iterations: { type: 'array', items: { type: 'object' } },
  },
};

const schedule: SchemaObject = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    workflow_uuid: uuid,
    schedule_type: { type: 'string', enum: ['scheduled', 'recurring'] },
    cron_expression: { type: 'string' },
    interval_seconds: { type: 'integer' },
    timezone: { type: 'string' },
    run_at: timestamp,
    note: nullable({ type: 'string' }),
    created_at: timestamp,
    exists_in_temporal: { type: 'boolean' },
    paused: nullable({ type: 'boolean' }),
    remaining_actions: nullable({ type: 'integer' }),
    next_action_times: { type: 'array', items: timestamp },
    recent_actions: {
      type: 'array',
      items: {
        type: 'object',
        properties: { scheduled_at: timestamp, started_at: timestamp, temporal_workflow_id: { type: 'string' }, run_uuid: nullable(uuid) },
      },
    },
  },
};

/** Every component of these routes; create-app.ts adds them to the document. */
const stepSide = (extra: Record<string, SchemaObject> = {}): SchemaObject =>
  nullable({
    type: 'object',
    properties: {
      status: { type: 'string' },
      error_message: nullable({ type: 'string' }),
      output: { description: 'The output whole up to 64 KiB, else null (output_id reads it)' },
      output_id: nullable(uuid),
      output_preview: nullable({ type: 'string' }),
      total_tokens: { type: 'integer' },
      cost: nullable({ type: 'number', description: 'Dollars at the configured prices; null when none of its calls had a price' }),
      duration_ms: nullable({ type: 'integer' }),
      ...extra,
    },
  });

const COMPARISONS = ['identical', 'changed', 'new', 'failed', 'removed'];

const replayReport: SchemaObject = {
  type: 'object',
  properties: {
    run_uuid: uuid,
    replay_of: uuid,
    status: { type: 'string', enum: [...RUN_STATUSES] },
    offline: { type: 'boolean' },
    summary: { type: 'object', properties: Object.fromEntries(COMPARISONS.map((name) => [name, { type: 'integer' }])) },
    steps: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          step_uuid: uuid,
          step_name: { type: 'string' },
          comparison: { type: 'string', enum: COMPARISONS },
          source: stepSide(),
          replay: stepSide({
            answered: {
              type: 'string',
              enum: ['record', 'computed', 'mixed', 'none'],
              description: 'record: every call it made was answered from the record; none: it made no call',
            },
            calls_from_record: { type: 'integer' },
            calls_made: { type: 'integer' },
          }),
        },
      },
    },
  },
};

export function runComponents(): Record<string, SchemaObject> {
  return {
    RunEvent: {
      type: 'object',
      description:
        "One SSE `data:` line. An event's `id:` is its `seq` in its run (a workflow's stream: its id across runs) and resumes the stream; `delta` and `text_so_far` carry no id: they are the answer of a model call in flight, named by instance_uuid, turn and attempt (an `attempt_restarted` voids the earlier attempt's text, or with `previous_turn` a structured step's rejected answer being corrected). `guard_rail_hit` names the `rail` (max_steps, repeated_input, timeout_seconds), the step whose execution it refused (max_steps, repeated_input; `step_name`, `step_uuid`) and `handed_to`, the human hand-off step, or null when the run ends on it. A run's stream ends after `run_ended`.",
      required: ['type'],
      properties: {
        type: {
          type: 'string',
          enum: [
            'run_started',
            'run_status',
            'run_ended',
            'step_started',
            'step_completed',
            'step_failed',
            'step_skipped',
            'awaiting_input',
            'loop_iteration',
            'model_call_started',
            'model_call_finished',
            'attempt_restarted',
            'guard_rail_hit',
            'tool_call_started',
            'tool_call_finished',
            'notification_sent',
            'delta',
            'text_so_far',
          ],
        },
        seq: { type: 'integer' },
        run_uuid: uuid,
        at: timestamp,
        status: { type: 'string' },
        instance_uuid: uuid,
        step_uuid: uuid,
        step_name: { type: 'string' },
        turn: { type: 'integer' },
        attempt: { type: 'integer' },
        model: { type: 'string' },
        provider: { type: 'string' },
        tool_name: { type: 'string' },
        output_id: nullable(uuid),
        summary: nullable({ type: 'string' }),
        error: nullable({ type: 'string' }),
        total_tokens: { type: 'integer' },
        duration_ms: nullable({ type: 'integer' }),
        kind: {
          type: 'string',
          enum: ['text', 'tool_call', 'tool_args'],
          description: 'A delta: text, a tool call named, or a piece of its arguments',
        },
        index: { type: 'integer', description: "A tool call's place among the answer's" },
        text: { type: 'string' },
        reason: {
          type: 'string',
          enum: ['retry', 'correction'],
          description: 'attempt_restarted: a retried attempt, or a correction turn',
        },
        previous_attempt: nullable({ type: 'integer' }),
        previous_turn: nullable({ type: 'integer', description: 'attempt_restarted for a correction: the turn whose text is void' }),
        rail: { type: 'string', enum: ['max_steps', 'repeated_input', 'timeout_seconds'], description: 'guard_rail_hit: the guard rail' },
        message: { type: 'string', description: "guard_rail_hit: the guard's message, as the run's error or the hand-off's reason" },
        handed_to: nullable({
          type: 'object',
          description:
            'guard_rail_hit: the human hand-off step that asks a person next (instance_uuid, step_uuid, step_name); null: the run ends',
        }),
      },
    },
    TurnReply: {
      type: 'object',
      properties: {
        turn: { type: 'integer' },
        reply: nullable({ type: 'string' }),
        status: { type: 'string' },
        error_message: nullable({ type: 'string' }),
      },
    },
    TurnAccepted: {
      type: 'object',
      properties: { run_uuid: uuid, turn_id: { type: 'string' }, status: { type: 'string', enum: ['running'] } },
    },
    Output: output,
    StepInstance: stepInstance,
    RunSummary: runSummary,
    Run: {
      allOf: [
        ref('RunSummary'),
        {
          type: 'object',
          properties: {
            trigger_output: { allOf: [ref('Output')], nullable: true },
            resumed_by: { type: 'array', items: uuid },
            children: {
              type: 'array',
              description: 'The runs its sub_workflow steps started',
              items: {
                type: 'object',
                properties: {
                  uuid,
                  workflow_uuid: uuid,
                  status: { type: 'string' },
                  parent_step_uuid: uuid,
                  created_at: { type: 'string', format: 'date-time' },
                },
              },
            },
            definition: { type: 'object', description: 'The definition the run executes (a snapshot)' },
            steps: { type: 'array', items: ref('StepInstance') },
          },
        },
      ],
    },
    RunPage: page('RunSummary'),
    Usage: usage(),
    SpendLimitsView: spendLimits(),
    ReplayReport: replayReport,
    Cancelled: {
      type: 'object',
      properties: {
        uuid,
        status: { type: 'string', description: 'The status when the cancel was asked' },
        cancel_requested: { type: 'boolean' },
      },
    },
    Tool: {
      type: 'object',
      properties: {
        uuid,
        user_id: { type: 'string' },
        name: { type: 'string' },
        description: { type: 'string' },
        parameters: { type: 'object' },
        transport: { type: 'string' },
        endpoint_url: nullable({ type: 'string' }),
        timeout_ms: { type: 'integer' },
        created_at: timestamp,
      },
    },
    ToolList: {
      type: 'object',
      properties: {
        items: { type: 'array', items: ref('Tool') },
        total: { type: 'integer' },
        next_cursor: { type: 'string', nullable: true },
        builtin: { type: 'array', items: { type: 'object', description: 'name, description, parameters' } },
      },
    },
    Schedule: schedule,
    ScheduleCreated: {
      oneOf: [ref('Schedule'), { type: 'object', properties: { schedule_type: { type: 'string', enum: ['immediate'] }, run: ref('Run') } }],
    },
    ScheduleList: {
      type: 'object',
      properties: {
        items: { type: 'array', items: ref('Schedule') },
        total: { type: 'integer' },
        next_cursor: { type: 'string', nullable: true },
      },
    },
    ScheduleTriggered: { type: 'object', properties: { id: { type: 'string' }, triggered: { type: 'boolean' } } },
    BackfillStarted: { type: 'object', properties: { id: { type: 'string' }, backfill: ref('Backfill') } },
    SecretRotation: {
      type: 'object',
      properties: { trigger_uuid: uuid, secret: { type: 'string', description: 'Shown once' }, hook_path: { type: 'string' } },
    },
    TriggerEvent: {
      type: 'object',
      properties: {
        uuid,
        trigger_uuid: uuid,
        delivery_key: nullable({ type: 'string' }),
        matched: { type: 'boolean' },
        run_uuid: nullable(uuid),
        body: any,
        received_at: timestamp,
      },
    },
    TriggerEventPage: page('TriggerEvent'),
    HookDelivery: {
      type: 'object',
      properties: {
        matched: { type: 'boolean' },
        event_uuid: uuid,
        run_uuid: { ...uuid, description: 'When it matched' },
        duplicate: { type: 'boolean', description: 'A repeated delivery: the run its first delivery started' },
      },
    },
  };
}
