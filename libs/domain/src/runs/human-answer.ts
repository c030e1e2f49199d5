// POST /runs/{uuid}/steps/{step_uuid}/input: which human_input step of the run's snapshot is answered, and
// whether the answer follows its input_schema. Checked before the answer reaches the workflow, whose
// update validator cannot run ajv: a refused answer leaves the run waiting and the history untouched.
import type { HumanInputStep, JsonValue, WorkflowDefinition } from '@app/contracts';
import { jsonSchemaErrors } from '../definition/json-schema';
import { DomainError, ErrorCode, notFound } from '../errors';
import { HUMAN_ANSWER_BODY } from './run-bodies';

export interface HumanAnswerRequest {
  step: HumanInputStep;
  input: JsonValue;
}

export function humanAnswerOf(definition: WorkflowDefinition, stepUuid: string, body: unknown): HumanAnswerRequest {
  const step = definition.steps.find((candidate) => candidate.uuid === stepUuid.toLowerCase());
  if (!step) throw notFound('Step', stepUuid);
  if (step.type !== 'human_input') {
    throw new DomainError(ErrorCode.StepNotAwaitingInput, `Step "${step.name}" is a ${step.type}: only human_input steps take input`, {
      field: 'step_uuid',
      step_uuid: step.uuid,
    });
  }
  const input = HUMAN_ANSWER_BODY.parse(body).input as JsonValue;
  const errors = step.input_schema ? jsonSchemaErrors(step.input_schema, input) : [];
  if (errors.length) {
    throw new DomainError(
      ErrorCode.InvalidHumanInput,
      `input does not follow the input_schema of step "${step.name}": ${errors.join('; ')}`,
      { field: 'input', errors },
    );
  }
  return { step, input };
}
