// Evaluations: a dataset is a workflow's named list of cases, each run data (trigger data, or a recorded run to
// replay) and the assertions its outputs must meet. Checked at save, bounded in size; the assertions are
// evaluated on each case's run (assertions.ts) and two targets' results compared (evaluation-report.ts).
import { CONDITION_OPERATORS, MODEL_PROVIDERS, type ConditionOperator, type ModelProvider } from '@app/contracts';
import { isValidJsonPath } from '../conditions/conditions';
import { schemaProblemText, userSchemaProblem } from '../definition/json-schema';
import { DomainError, ErrorCode } from '../errors';
import { assertStorableJson } from '../outputs/json-depth';
import { requestBody } from '../request-body';

export const DATASET_MAX_CASES = 100;
export const CASE_MAX_ASSERTIONS = 20;

/** What an assertion reads: a step's output by the step's name, else the run's final output (its last step's). */
interface OnOutput {
  step?: string;
}

export type EvalAssertion =
  | (OnOutput & { kind: 'schema'; schema: Record<string, unknown> })
  | (OnOutput & { kind: 'condition'; path: string; operator: ConditionOperator; value?: unknown })
  | (OnOutput & { kind: 'judge'; criteria: string; model: string; provider?: ModelProvider })
  | { kind: 'max_tokens'; value: number }
  | { kind: 'max_duration_ms'; value: number };

export interface EvalCase {
  name: string;
  /** Fresh: run with this trigger data. */
  trigger_output?: unknown;
  /** Recorded: replay this run (its trigger data, its record answering what is asked the same). */
  run_uuid?: string;
  assertions: EvalAssertion[];
}

export interface DatasetInput {
  name: string;
  cases: EvalCase[];
}

const STEP = { type: 'string', minLength: 1, maxLength: 200, description: "A step's name; absent: the run's final output" };

const ASSERTION = {
  oneOf: [
    {
      type: 'object',
      additionalProperties: false,
      required: ['kind', 'schema'],
      properties: { kind: { const: 'schema' }, step: STEP, schema: { type: 'object' } },
    },
    {
      type: 'object',
      additionalProperties: false,
      required: ['kind', 'path', 'operator'],
      properties: {
        kind: { const: 'condition' },
        step: STEP,
        path: { type: 'string', minLength: 1, maxLength: 2000, description: 'A JSONPath into the output ($ for all of it)' },
        operator: { enum: [...CONDITION_OPERATORS] },
        value: { description: 'The target value (the stop checker operators compare with it)' },
      },
    },
    {
      type: 'object',
      additionalProperties: false,
      required: ['kind', 'criteria', 'model'],
      properties: {
        kind: { const: 'judge' },
        step: STEP,
        criteria: {
          type: 'string',
          minLength: 1,
          maxLength: 2000,
          description: 'What a good output does: a model reads it and the output, and answers pass or fail',
        },
        model: { type: 'string', minLength: 1, maxLength: 200, description: 'The judging model (MODELS_ALLOWED applies)' },
        provider: { enum: [...MODEL_PROVIDERS] },
      },
    },
    {
      type: 'object',
      additionalProperties: false,
      required: ['kind', 'value'],
      properties: { kind: { enum: ['max_tokens', 'max_duration_ms'] }, value: { type: 'integer', minimum: 0 } },
    },
  ],
};

/** POST /workflows/{uuid}/datasets */
export const DATASET_BODY = requestBody(
  'NewDataset',
  {
    type: 'object',
    additionalProperties: false,
    required: ['name', 'cases'],
    properties: {
      name: { type: 'string', pattern: '^[A-Za-z0-9_.-]{1,100}$' },
      cases: {
        type: 'array',
        minItems: 1,
        maxItems: DATASET_MAX_CASES,
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['name', 'assertions'],
          properties: {
            name: { type: 'string', minLength: 1, maxLength: 200 },
            trigger_output: { description: 'Run fresh with this trigger data' },
            run_uuid: { type: 'string', format: 'uuid', description: 'Replay this recorded run instead' },
            assertions: { type: 'array', maxItems: CASE_MAX_ASSERTIONS, items: ASSERTION },
          },
        },
      },
    },
  },
  (body): DatasetInput => {
    const input = body as unknown as DatasetInput;
    const names = new Set<string>();
    input.cases.forEach((item, i) => {
      const field = `cases[${i}]`;
      if (names.has(item.name))
        throw new DomainError(ErrorCode.ValidationFailed, `Two cases are named ${item.name}`, { field: `${field}.name` });
      names.add(item.name);
      if ((item.run_uuid === undefined) === (item.trigger_output === undefined))
        throw new DomainError(ErrorCode.ValidationFailed, 'A case gives trigger_output or run_uuid, one of them', { field });
      assertStorableJson(item.trigger_output, `${field}.trigger_output`);
      item.assertions.forEach((assertion, j) => {
        const at = `${field}.assertions[${j}]`;
        if (assertion.kind === 'schema') {
          const problem = userSchemaProblem(assertion.schema);
          if (problem) throw new DomainError(problem.code, `schema ${schemaProblemText(problem)}`, { field: `${at}.schema` });
        }
        if (assertion.kind === 'condition') {
          if (!isValidJsonPath(assertion.path))
            throw new DomainError(ErrorCode.InvalidJsonPath, `${assertion.path} is not a JSONPath stepwise evaluates`, {
              field: `${at}.path`,
            });
          assertStorableJson(assertion.value, `${at}.value`);
        }
      });
    });
    return input;
  },
);

/** What an evaluation runs against: the workflow as saved now, or a version of it. */
export type EvalTarget = 'current' | number;

export interface EvaluationOptions {
  dataset: string;
  /** One target, or two: the first is the baseline the second is compared with. */
  targets: EvalTarget[];
  concurrency: number;
}

export const EVALUATION_MAX_CONCURRENCY = 10;

const TARGET = { oneOf: [{ enum: ['current'] }, { type: 'integer', minimum: 1 }] };

/** POST /workflows/{uuid}/evaluations */
export const EVALUATION_BODY = requestBody(
  'NewEvaluation',
  {
    type: 'object',
    additionalProperties: false,
    required: ['dataset'],
    properties: {
      dataset: { type: 'string', minLength: 1, maxLength: 100, description: "The dataset's name" },
      target: { ...TARGET, default: 'current', description: 'The definition evaluated' },
      against: { ...TARGET, description: 'A baseline evaluated too: what passed there and fails on target is a regression' },
      concurrency: { type: 'integer', minimum: 1, maximum: EVALUATION_MAX_CONCURRENCY, default: 4 },
    },
  },
  (body): EvaluationOptions => ({
    dataset: body.dataset as string,
    targets: [...(body.against !== undefined ? [body.against as EvalTarget] : []), (body.target as EvalTarget | undefined) ?? 'current'],
    concurrency: (body.concurrency as number | undefined) ?? 4,
  }),
);
