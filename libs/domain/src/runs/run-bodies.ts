// What the run routes take: each body one JSON Schema, checked by the one validator and shown as it is by the
// OpenAPI document. A human answer's `input` is then checked against its step's input_schema (human-answer.ts).
import type { RunBudget } from '@app/contracts';
import { assertStorableJson } from '../outputs/json-depth';
import { requestBody } from '../request-body';
import { BUDGET_SCHEMA } from '../definition/step-schemas';

const ANY = { description: 'Any JSON value' };
/** A budget's limits: tokens, US dollars at the configured prices, or both (a workflow's `budget` takes the same). */
const LIMITS = BUDGET_SCHEMA.properties as Record<string, unknown>;
const ONE_LIMIT = { minProperties: 1, additionalProperties: false };

/** The limits a body gave, and no others. */
const limitsOf = (body: Record<string, unknown>): RunBudget => ({
  ...(body.max_tokens !== undefined ? { max_tokens: body.max_tokens as number } : {}),
  ...(body.max_cost !== undefined ? { max_cost: body.max_cost as number } : {}),
});
const UUID = { type: 'string', format: 'uuid' };

export interface RunStartOptions {
  trigger_output: unknown;
  dry_run: boolean;
  budget?: RunBudget;
}

/** POST /workflows/{uuid}/runs (and the MCP tool run_workflow). */
export const RUN_START_BODY = requestBody(
  'NewRun',
  {
    type: 'object',
    properties: {
      trigger_output: { ...ANY, description: 'The data the steps read as <<trigger_output>>' },
      budget: {
        type: ['object', 'null'],
        ...ONE_LIMIT,
        properties: LIMITS,
        description:
          'The run waits (awaiting_input) for POST /runs/{uuid}/approve-budget once its model calls used this many tokens, or cost this many dollars (checked after each step)',
      },
      dry_run: {
        type: 'boolean',
        default: false,
        description:
          'Run on Temporal with the built-in dry-run model: no provider call, no tool side effect, no notification, costs nothing',
      },
    },
  },
  (body): RunStartOptions => {
    // Bounded before it is stored: what MySQL would refuse (too deep, a lone surrogate) is a 422 naming the field.
    assertStorableJson(body.trigger_output, 'trigger_output');
    const budget = body.budget as Record<string, unknown> | null | undefined;
    return {
      trigger_output: body.trigger_output ?? null,
      dry_run: body.dry_run === true,
      ...(budget ? { budget: limitsOf(budget) } : {}),
    };
  },
);

export interface ResumeOptions {
  from_step_uuid?: string;
  definition: 'original' | 'current';
}

/** POST /runs/{uuid}/resume (and the MCP tool resume_run): both fields optional, so the body may be left out. */
export const RESUME_BODY = requestBody(
  'ResumeRequest',
  {
    type: 'object',
    additionalProperties: false,
    properties: {
      from_step_uuid: { ...UUID, description: 'Default: the step that failed' },
      definition: {
        type: 'string',
        enum: ['original', 'current'],
        default: 'original',
        description: 'The definition the parent ran, or the workflow as edited since',
      },
    },
  },
  (body): ResumeOptions => ({
    ...(body.from_step_uuid !== undefined ? { from_step_uuid: body.from_step_uuid as string } : {}),
    definition: (body.definition as ResumeOptions['definition'] | undefined) ?? 'original',
  }),
  { absentIsEmpty: true },
);

/** POST /runs/{uuid}/approve-budget */
export const BUDGET_APPROVAL_BODY = requestBody(
  'BudgetApproval',
  {
    type: 'object',
    ...ONE_LIMIT,
    properties: LIMITS,
    description: "The new limits: each one given replaces the run's, and the run must then be under every limit",
  },
  (body) => limitsOf(body),
);

/** POST /runs/{uuid}/steps/{step_uuid}/input: the answer, checked against the step's input_schema once the step is known. */
export const HUMAN_ANSWER_BODY = requestBody(
  'HumanAnswer',
  { type: 'object', required: ['input'], properties: { input: { ...ANY, description: "Checked against the step's input_schema" } } },
  (body) => {
    assertStorableJson(body.input, 'input');
    return { input: body.input };
  },
  { absentIsEmpty: true },
);

/** POST /runs/{uuid}/messages: a user message to a conversational run. */
export const MESSAGE_BODY = requestBody(
  'Message',
  { type: 'object', required: ['content'], properties: { content: { type: 'string', minLength: 1, pattern: '\\S' } } },
  (body) => ({ content: body.content as string }),
  { absentIsEmpty: true },
);

export interface ReplayOptions {
  /** `current`: the workflow as saved now; a number: that version of it; an object: a definition not saved, read as a save reads it. */
  target: 'current' | number | Record<string, unknown>;
  offline: boolean;
}

/** POST /runs/{uuid}/replay (and the MCP tool replay_run): both fields optional, so the body may be left out. */
export const REPLAY_BODY = requestBody(
  'ReplayRequest',
  {
    type: 'object',
    additionalProperties: false,
    properties: {
      target: {
        oneOf: [
          { type: 'string', enum: ['current'], description: 'The workflow as saved now' },
          { type: 'integer', minimum: 1, description: 'A version of the workflow (GET /workflows/{uuid}/versions)' },
          { type: 'object', description: 'A definition not saved (the body of POST /workflows), checked as a save checks it' },
        ],
        default: 'current',
        description: 'The definition the recorded trigger data runs through',
      },
      offline: {
        type: 'boolean',
        default: false,
        description:
          'Calls not in the record go to the built-in dry-run model, tool calls not in it get a dry run answer: no provider request',
      },
    },
  },
  (body): ReplayOptions => ({
    target: (body.target as ReplayOptions['target'] | undefined) ?? 'current',
    offline: body.offline === true,
  }),
  { absentIsEmpty: true },
);
