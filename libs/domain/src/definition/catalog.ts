import { STEP_TYPES, TRIGGER_TYPES, type StepType, type TriggerType } from '@app/contracts';
import { STEP_SCHEMAS, TRIGGER_SCHEMAS } from './step-schemas';

export interface TypeInfo<T extends string> {
  type: T;
  name: string;
  description: string;
  schema: Record<string, unknown>;
}

const STEP_TEXT: Record<StepType, [string, string]> = {
  custom_llm: [
    'LLM call',
    'One chat completion; an optional output_schema makes the answer JSON that is validated, and sent back for correction when it does not follow the schema.',
  ],
  custom_agent: [
    'Agent with tools',
    'A model that calls tools in a loop (each turn and call durable) until it answers; a tool may be another of your workflows (workflow:<uuid>), each call a child run.',
  ],
  stop_checker: ['Stop checker', 'Ends the run as stopped when a condition on an earlier output holds.'],
  tool_executor: ['Tool executor', 'Graph workflows: runs the tool calls of the agent that routed to it, then routes by tool name.'],
  human_input: [
    'Human input',
    'The run waits (awaiting_input) until a person answers through POST /runs/{uuid}/steps/{step_uuid}/input; the answer, checked against input_schema, is the step output.',
  ],
  sub_workflow: [
    'Sub-workflow',
    "Runs another of your workflows (workflow_uuid) as a run of its own, pinned to its definition when this run started; input (placeholders allowed) is its trigger data, checked against that workflow's input_schema; its final output is the step output. Cancelling this run cancels it; it waiting for a person makes this run wait.",
  ],
};

const TRIGGER_TEXT: Record<TriggerType, [string, string]> = {
  manual: ['Manual', 'Runs start through POST /workflows/{uuid}/runs.'],
  webhook: ['Webhook', 'An HTTP endpoint starts a run when the event matches the filter rules.'],
  schedule: ['Schedule', 'A Temporal Schedule starts runs once or on a cron.'],
};

export const STEP_TYPE_CATALOG: TypeInfo<StepType>[] = STEP_TYPES.map((type) => ({
  type,
  name: STEP_TEXT[type][0],
  description: STEP_TEXT[type][1],
  schema: STEP_SCHEMAS[type],
}));

export const TRIGGER_TYPE_CATALOG: TypeInfo<TriggerType>[] = TRIGGER_TYPES.map((type) => ({
  type,
  name: TRIGGER_TEXT[type][0],
  description: TRIGGER_TEXT[type][1],
  schema: TRIGGER_SCHEMAS[type],
}));
