// Factories of what the run workflow is started with: typed steps, edges, and the prepared run (the rows
// the API would have written, as uuids), so each spec states only what its case is about.
import { randomUUID } from 'node:crypto';
import type {
  CustomAgentStep,
  CustomLlmStep,
  EdgeDefinition,
  GraphDefinition,
  HumanInputStep,
  PreparedRun,
  StepDefinition,
  StepResultRef,
  StopCheckerStep,
  ToolExecutorStep,
} from '@app/contracts';

// One attempt: a failure the spec provokes fails the step at once instead of after retries.
const once = { max_attempts: 1 };

export const llmStep = (name: string, fields: Partial<CustomLlmStep> = {}): CustomLlmStep => ({
  uuid: randomUUID(),
  type: 'custom_llm',
  name,
  description: '',
  model: 'fake',
  system_prompt: name,
  retry_policy: once,
  ...fields,
});

export const agentStep = (name: string, fields: Partial<CustomAgentStep> = {}): CustomAgentStep => ({
  uuid: randomUUID(),
  type: 'custom_agent',
  name,
  description: '',
  model: 'fake',
  system_prompt: name,
  tools: [],
  retry_policy: once,
  ...fields,
});

export const humanStep = (name: string, fields: Partial<HumanInputStep> = {}): HumanInputStep => ({
  uuid: randomUUID(),
  type: 'human_input',
  name,
  description: '',
  prompt: `${name}?`,
  ...fields,
});

export const toolExecutorStep = (name: string): ToolExecutorStep => ({
  uuid: randomUUID(),
  type: 'tool_executor',
  name,
  description: '',
  retry_policy: once,
});

export const stopCheckerStep = (name: string, watched: StepDefinition): StopCheckerStep => ({
  uuid: randomUUID(),
  type: 'stop_checker',
  name,
  description: '',
  retry_policy: once,
  stop_conditions: [{ step_definition_uuid: watched.uuid, extraction_json_path: '$.status', operator: 'equals', target_value: 'stop' }],
});

/** ALWAYS without a value or data conditions, else CONDITIONAL; `to` null ends the branch (END). */
export const edge = (from: StepDefinition, to: StepDefinition | null, fields: Partial<EdgeDefinition> = {}): EdgeDefinition => ({
  uuid: randomUUID(),
  source_step_uuid: from.uuid,
  target_step_uuid: to?.uuid ?? null,
  condition_type: fields.condition_value || fields.conditions ? 'CONDITIONAL' : 'ALWAYS',
  condition_value: null,
  ...fields,
});

type RunFields = Partial<Omit<PreparedRun, 'definition' | 'instances'>>;

/** A run of a chain: `steps` in order, each with its row. */
export function chainRun(steps: StepDefinition[], fields: RunFields = {}): PreparedRun {
  return preparedRun(steps, null, fields);
}

/** A run of a graph of `steps` entered at the first, with `graph`'s edges and guard rails. */
export function graphRun(
  steps: StepDefinition[],
  graph: Omit<GraphDefinition, 'entry_node'> & { entry_node?: string },
  fields: RunFields = {},
): PreparedRun {
  return preparedRun(steps, { entry_node: steps[0].uuid, ...graph }, fields);
}

function preparedRun(steps: StepDefinition[], graph: GraphDefinition | null, fields: RunFields): PreparedRun {
  return {
    run_uuid: randomUUID(),
    user_id: 'user-1',
    definition: {
      uuid: randomUUID(),
      name: 'engine spec',
      description: '',
      is_active: true,
      status: 'active',
      notify_url: null,
      notify_on_complete: false,
      notify_on_failure: false,
      tool_drift: 'warn',
      steps,
      trigger: null,
      graph,
    },
    instances: steps.map((step) => ({ step_uuid: step.uuid, instance_uuid: randomUUID() })),
    ...fields,
  };
}

/** The row a step has from the run's start (a graph execution's row is beneath it). */
export const rowOf = (run: PreparedRun, step: StepDefinition): string =>
  run.instances.find((ref) => ref.step_uuid === step.uuid)!.instance_uuid;

/**
 * An output reference as the worker's activities answer it. Every one differs (id and digest) unless
 * `digest` says otherwise: the repeated-input guard rail compares digests.
 */
let outputs = 0;
export const output = (fields: Partial<StepResultRef> = {}): StepResultRef => {
  outputs += 1;
  return { output_id: `output-${outputs}`, summary: `output ${outputs}`, size_bytes: 10, digest: `digest-${outputs}`, ...fields };
};
