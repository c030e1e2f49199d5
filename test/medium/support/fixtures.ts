// Typed factories for the medium specs: definitions, new runs, and the step context an activity receives.
import { randomUUID } from 'node:crypto';
import type {
  CustomAgentStep,
  CustomLlmStep,
  StepContext,
  StepDefinition,
  StopCheckerStep,
  StopCondition,
  WorkflowDefinition,
} from '@app/contracts';
import type { SavedToolManifest } from '@app/domain';
import type { ManifestOf, NewRun } from '@app/persistence';

/** A user of their own per test: nothing a spec writes is seen by another (medium, e2e or a parallel file). */
export const newUserId = (): string => `medium-${randomUUID()}`;

const shortName = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}`;

export const llmStep = (overrides: Partial<CustomLlmStep> = {}): CustomLlmStep => ({
  uuid: randomUUID(),
  type: 'custom_llm',
  name: shortName('llm'),
  description: '',
  model: 'test-model',
  system_prompt: 'Summarise <<trigger_output>>',
  ...overrides,
});

export const agentStep = (overrides: Partial<CustomAgentStep> = {}): CustomAgentStep => ({
  uuid: randomUUID(),
  type: 'custom_agent',
  name: shortName('agent'),
  description: '',
  model: 'test-model',
  system_prompt: 'Use your tools',
  tools: [],
  ...overrides,
});

export const stopCheckerStep = (conditions: StopCondition[]): StopCheckerStep => ({
  uuid: randomUUID(),
  type: 'stop_checker',
  name: shortName('stop'),
  description: '',
  stop_conditions: conditions,
});

export const workflowDefinition = (
  steps: StepDefinition[] = [llmStep()],
  overrides: Partial<WorkflowDefinition> = {},
): WorkflowDefinition => ({
  uuid: randomUUID(),
  name: shortName('workflow'),
  description: 'a medium spec workflow',
  is_active: true,
  status: 'active',
  notify_url: null,
  notify_on_complete: false,
  notify_on_failure: false,
  tool_drift: 'warn',
  steps,
  trigger: { uuid: randomUUID(), type: 'manual', filter_rules: {}, initial_data_description: 'anything' },
  graph: null,
  ...overrides,
});

/** What the tool registry would give a workflow whose agents use no registered tool. */
export const noTools: ManifestOf = async (): Promise<SavedToolManifest> => ({ tool_manifest: [], tool_manifest_hash: 'medium-no-tools' });

/**
 * A run of `definition` as RunPreparer records it. Its Temporal id is not `run-<uuid>`: the API's reconciler
 * (which e2e specs call on the same database) must never take a medium run for one it should start.
 */
export function newRun(userId: string, definition: WorkflowDefinition, triggerData: unknown = { topic: 'medium' }): NewRun {
  const uuid = randomUUID();
  return {
    uuid,
    user_id: userId,
    workflow_uuid: definition.uuid,
    workflow_name: definition.name,
    definition,
    temporal_workflow_id: `medium-${uuid}`,
    schedule_id: null,
    trigger_output: {
      uuid: randomUUID(),
      raw_data: triggerData,
      summary: 'trigger data',
      markdown_representation: null,
      size_bytes: JSON.stringify(triggerData).length,
    },
    steps: definition.steps.map((step) => ({
      uuid: randomUUID(),
      step_definition_uuid: step.uuid,
      step_name: step.name,
      step_type: step.type,
    })),
  };
}

/** The context the workflow hands the activity of the run's step at `position`. */
export function stepContext(run: NewRun, position: number): StepContext {
  const previous = run.steps[position - 1];
  return {
    run_uuid: run.uuid,
    user_id: run.user_id,
    instance_uuid: run.steps[position].uuid,
    previous_step_uuid: previous?.step_definition_uuid ?? null,
  };
}

/** What a first attempt of an activity gets; `attempt` 2 is Temporal's retry of it. */
export const activityScope = (attempt = 1) => ({ signal: new AbortController().signal, attempt });
