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
