// Small factories of definition bodies for the specs.
import { randomUUID } from 'node:crypto';

export const llmStep = (overrides: Record<string, unknown> = {}) => ({
  uuid: randomUUID(),
  type: 'custom_llm',
  name: `llm-${randomUUID().slice(0, 8)}`,
  model: 'test-model',
  system_prompt: 'Summarise <<trigger_output>>',
  ...overrides,
});

export const agentStep = (overrides: Record<string, unknown> = {}) => ({
  uuid: randomUUID(),
  type: 'custom_agent',
  name: `agent-${randomUUID().slice(0, 8)}`,
  model: 'test-model',
  system_prompt: 'Use your tools',
  tools: [],
  ...overrides,
});

export const stopChecker = (stepUuid: string, overrides: Record<string, unknown> = {}) => ({
  uuid: randomUUID(),
  type: 'stop_checker',
  name: `stop-${randomUUID().slice(0, 8)}`,
  stop_conditions: [{ step_definition_uuid: stepUuid, extraction_json_path: '$.status', operator: 'equals', target_value: 'stop' }],
  ...overrides,
});

type Node = { uuid: string };

/** A graph edge: ALWAYS without a value (or data conditions), CONDITIONAL with one; `target` null is END. */
export const graphEdge = (
  source: Node,
  target: Node | null,
  condition_value: string | null = null,
  extra: Record<string, unknown> = {},
) => ({
  source_step_uuid: source.uuid,
  target_step_uuid: target?.uuid ?? null,
  condition_type: condition_value === null && !extra.conditions ? 'ALWAYS' : 'CONDITIONAL',
  condition_value,
  ...extra,
});

export const toolExecutorStep = () => ({ uuid: randomUUID(), type: 'tool_executor', name: 'tool_executor' });
