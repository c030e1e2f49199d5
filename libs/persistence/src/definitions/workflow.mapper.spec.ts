import type { CustomAgentStep, StopCheckerStep, TriggerDefinition } from '@app/contracts';
import { TriggerEntity, WorkflowEntity, WorkflowStepEntity } from './definition.entities';
import type { WorkflowDefinition } from '@app/contracts';
import { toStep, toStepRow, toTrigger, toTriggerRow, toWorkflowRecord, toWorkflowRow } from './workflow.mapper';

const agent: CustomAgentStep = {
  uuid: '00000000-0000-4000-8000-000000000001',
  type: 'custom_agent',
  name: 'Research',
  description: 'looks things up',
  model: 'm',
  system_prompt: 'Find <<trigger_output>>',
  tools: ['http_request'],
  max_iterations: 4,
  output_schema: { type: 'object' },
};

const checker: StopCheckerStep = {
  uuid: '00000000-0000-4000-8000-000000000002',
  type: 'stop_checker',
  name: 'Stop?',
  description: '',
  stop_conditions: [{ step_definition_uuid: agent.uuid, extraction_json_path: '$.n', operator: 'greater_than', target_value: 3 }],
};

const trigger: TriggerDefinition = {
  uuid: '00000000-0000-4000-8000-0000000000aa',
  type: 'webhook',
  filter_rules: { all: [] },
  initial_data_description: 'an event',
};

/** What the database gives back for a row the mapper wrote. */
const stored = <T extends object>(entity: new () => T, row: object): T =>
  Object.assign(new entity(), row, { created_at: new Date(0), updated_at: new Date(0) });

describe('workflow.mapper', () => {
  it('keeps uuid, name and type in columns and every other step field in details', () => {
    const row = toStepRow(agent, 'wf', 'user');
    expect(row).toMatchObject({ uuid: agent.uuid, name: 'Research', type: 'custom_agent', workflow_uuid: 'wf', user_id: 'user' });
    expect(row.details).toEqual({
      description: 'looks things up',
      model: 'm',
      system_prompt: 'Find <<trigger_output>>',
      tools: ['http_request'],
      max_iterations: 4,
      output_schema: { type: 'object' },
    });
  });

  it.each([agent, checker])('reads back the step it wrote ($type)', (step) => {
    expect(toStep(stored(WorkflowStepEntity, toStepRow(step, 'wf', 'user')))).toEqual(step);
  });

  it('reads back the trigger it wrote, defaulting missing details', () => {
    expect(toTrigger(stored(TriggerEntity, toTriggerRow(trigger, 'wf', 'user')))).toEqual(trigger);
    expect(toTrigger(stored(TriggerEntity, { uuid: 't', type: 'manual', details: {} }))).toEqual({
      uuid: 't',
      type: 'manual',
      filter_rules: {},
      initial_data_description: '',
    });
  });

  it('orders steps by the workflow row, whatever order the step rows came in', () => {
    const workflow = stored(WorkflowEntity, {
      uuid: 'wf',
      user_id: 'user',
      name: 'n',
      description: '',
      is_active: true,
      steps: [agent.uuid, checker.uuid],
    });
    const rows = [checker, agent].map((step) => stored(WorkflowStepEntity, toStepRow(step, 'wf', 'user')));
    const record = toWorkflowRecord(workflow, rows, stored(TriggerEntity, toTriggerRow(trigger, 'wf', 'user')));
    expect(record).toMatchObject({ uuid: 'wf', user_id: 'user', is_active: true, steps: [agent, checker], trigger });
  });

  it('reads back the workflow row it wrote, with its steps and trigger', () => {
    const definition: WorkflowDefinition = {
      uuid: 'wf',
      name: 'n',
      description: 'd',
      is_active: false,
      status: 'active',
      notify_url: 'https://example.com/hook',
      notify_on_complete: true,
      notify_on_failure: false,
      tool_drift: 'fail',
      output_history_size: 3,
      steps: [agent, checker],
      trigger,
      graph: null,
    };
    const row = toWorkflowRow(definition);
    expect(row).toMatchObject({ steps: [agent.uuid, checker.uuid], trigger_uuid: trigger.uuid, output_history_size: 3, graph: null });
    const rows = [agent, checker].map((step) => stored(WorkflowStepEntity, toStepRow(step, 'wf', 'user')));
    const record = toWorkflowRecord(
      stored(WorkflowEntity, { ...row, uuid: 'wf', user_id: 'user' }),
      rows,
      stored(TriggerEntity, toTriggerRow(trigger, 'wf', 'user')),
    );
    expect(record).toMatchObject(definition);
  });
});
