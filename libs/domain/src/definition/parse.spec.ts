import { randomUUID } from 'node:crypto';
import type { WorkflowDefinition } from '@app/contracts';
import { type DomainError, ErrorCode } from '../errors';
import { errorOf } from '../errors.testing';
import {
  checkPermutation,
  parseStep,
  parseTrigger,
  parseWorkflowDocument,
  parseWorkflowInput,
  parseWorkflowPatch,
  toWorkflowDocument,
  WORKFLOW_DOCUMENT_FORMAT,
} from './parse';

type Body = Record<string, unknown>;

const llm = (overrides: Body = {}): Body => ({
  type: 'custom_llm',
  name: `llm ${randomUUID().slice(0, 8)}`,
  model: 'gpt-4o-mini',
  system_prompt: 'Say hi',
  ...overrides,
});

const agent = (overrides: Body = {}): Body => llm({ type: 'custom_agent', name: `agent ${randomUUID().slice(0, 8)}`, ...overrides });

const condition = (overrides: Body = {}): Body => ({
  step_definition_uuid: randomUUID(),
  extraction_json_path: '$.status',
  operator: 'equals',
  target_value: 'done',
  ...overrides,
});

const checker = (overrides: Body = {}): Body => ({
  type: 'stop_checker',
  name: `stop ${randomUUID().slice(0, 8)}`,
  stop_conditions: [condition()],
  ...overrides,
});

const without = (body: Body, key: string): Body => Object.fromEntries(Object.entries(body).filter(([k]) => k !== key));

/** A fixed uuid source, so specs can tell assigned uuids from given ones. */
const sequence = () => {
  let n = 0;
  return () => `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`;
};

const fieldsOf = (error: DomainError) => (error.details.errors as { field: string }[]).map((e) => e.field);
const codesOf = (error: DomainError) => (error.details.errors as { code: string }[]).map((e) => e.code);

describe(parseStep.name, () => {
  describe('defaults and normalisation', () => {
    it('assigns a uuid when absent and an empty description', () => {
      const step = parseStep(llm(), '', () => 'new-uuid');
      expect(step).toMatchObject({ uuid: 'new-uuid', description: '', type: 'custom_llm' });
    });

    it('keeps a given uuid, lower-cased', () => {
      const uuid = randomUUID();
      expect(parseStep(llm({ uuid: uuid.toUpperCase() }), '', sequence()).uuid).toBe(uuid);
    });

    it('gives agents an empty tool list and leaves max_iterations to the engine', () => {
      const step = parseStep(agent(), '', randomUUID);
      expect(step).toMatchObject({ type: 'custom_agent', tools: [] });
      expect(step).not.toHaveProperty('max_iterations');
    });

    it('keeps every valid field as given', () => {
      const body = llm({
        uuid: randomUUID(),
        description: 'greets',
        output_schema: { type: 'object', properties: { greeting: { type: 'string' } }, required: ['greeting'] },
        retry_policy: { max_attempts: 3, initial_interval_seconds: 1, backoff_coefficient: 2, maximum_interval_seconds: 10 },
      });
      expect(parseStep(body, '', randomUUID)).toEqual(body);
    });

    it('keeps an agent with tools, max_iterations and its execution', () => {
      const body = agent({
        tools: ['http_request', 'get_output'],
        max_iterations: 4,
        output_schema: null,
        retry_policy: null,
        execution: 'queued',
      });
      expect(parseStep(body, '', randomUUID)).toMatchObject({
        tools: ['http_request', 'get_output'],
        max_iterations: 4,
        execution: 'queued',
      });
    });

    it.each([[0], [2], [10], [null]])(
      'keeps max_correction_attempts %j on LLM and agent steps, and leaves the default to the worker',
      (max_correction_attempts) => {
        expect(parseStep(llm({ max_correction_attempts }), '', randomUUID)).toMatchObject({ max_correction_attempts });
        expect(parseStep(agent({ max_correction_attempts }), '', randomUUID)).toMatchObject({ max_correction_attempts });
        expect(parseStep(llm(), '', randomUUID)).not.toHaveProperty('max_correction_attempts');
      },
    );

    it('lower-cases the step uuids stop conditions name', () => {
      const target = randomUUID();
      const step = parseStep(
        checker({ stop_conditions: [condition({ step_definition_uuid: target.toUpperCase(), target_value: { a: [1] } })] }),
        '',
        randomUUID,
      );
      expect(step.type === 'stop_checker' && step.stop_conditions[0]).toEqual(
        condition({ step_definition_uuid: target, target_value: { a: [1] } }),
      );
    });

    it('accepts output schemas that declare draft 2020-12', () => {
      const output_schema = { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'array', prefixItems: [{ type: 'string' }] };
      expect(() => parseStep(llm({ output_schema }), '', randomUUID)).not.toThrow();
    });
  });

  describe('type', () => {
    it.each([
      ['an unknown type', llm({ type: 'shell' })],
      ['no type', without(llm(), 'type')],
      ['a type that is not a string', llm({ type: 3 })],
    ])('refuses %s with UNKNOWN_STEP_TYPE naming the field', (_case, body) => {
      expect(errorOf(() => parseStep(body, '', randomUUID))).toMatchObject({ code: ErrorCode.UnknownStepType, details: { field: 'type' } });
      expect(errorOf(() => parseStep(body, 'steps[1]', randomUUID)).details.field).toBe('steps[1].type');
    });
  });

  it.each([
    ['', 'body'],
    ['steps[1]', 'steps[1]'],
  ])('refuses a body that is not an object (prefix %j)', (prefix, field) => {
    for (const body of [null, 'step', [llm()], 42]) {
      expect(errorOf(() => parseStep(body, prefix, randomUUID))).toMatchObject({ code: ErrorCode.ValidationFailed, details: { field } });
    }
  });

  describe('fields', () => {
    it.each([
      ['a missing name', without(llm(), 'name'), 'name'],
      ['a missing model', without(llm(), 'model'), 'model'],
      ['a missing system_prompt', without(llm(), 'system_prompt'), 'system_prompt'],
      ['an agent without model', without(agent(), 'model'), 'model'],
      ['an empty name', llm({ name: '' }), 'name'],
      ['a blank name', llm({ name: '   ' }), 'name'],
      ['a name over 200 characters', llm({ name: 'x'.repeat(201) }), 'name'],
      ['a blank model', llm({ model: ' ' }), 'model'],
      ['an empty system_prompt', llm({ system_prompt: '' }), 'system_prompt'],
      ['a description that is not text', llm({ description: 5 }), 'description'],
      ['a uuid that is not a uuid', llm({ uuid: 'abc' }), 'uuid'],
      ['an output_schema that is not an object', llm({ output_schema: [1] }), 'output_schema'],
      ['an unknown field', llm({ colour: 'red' }), 'colour'],
      ['a position (the API strips it)', llm({ position: 0 }), 'position'],
      ['an agent field on an LLM step', llm({ tools: [] }), 'tools'],
      ['an execution that is neither local nor queued', llm({ execution: 'remote' }), 'execution'],
      ['an agent execution that is neither local nor queued', agent({ execution: 'remote' }), 'execution'],
      ['tools that are not an array', agent({ tools: 'http_request' }), 'tools'],
      ['a tool name with spaces', agent({ tools: ['my tool'] }), 'tools[0]'],
      ['a tool listed twice', agent({ tools: ['a', 'a'] }), 'tools'],
      ['max_iterations of 0', agent({ max_iterations: 0 }), 'max_iterations'],
      ['max_iterations over 100', agent({ max_iterations: 101 }), 'max_iterations'],
      ['max_iterations that is not whole', agent({ max_iterations: 2.5 }), 'max_iterations'],
      ['max_correction_attempts under 0', llm({ max_correction_attempts: -1 }), 'max_correction_attempts'],
      ['max_correction_attempts over 10', agent({ max_correction_attempts: 11 }), 'max_correction_attempts'],
      ['max_correction_attempts that is not whole', llm({ max_correction_attempts: 1.5 }), 'max_correction_attempts'],
      ['max_correction_attempts that is not a number', agent({ max_correction_attempts: '2' }), 'max_correction_attempts'],
      ['max_correction_attempts on a stop checker', checker({ max_correction_attempts: 1 }), 'max_correction_attempts'],
      ['max_attempts of 0', llm({ retry_policy: { max_attempts: 0 } }), 'retry_policy.max_attempts'],
      ['max_attempts over 100', llm({ retry_policy: { max_attempts: 101 } }), 'retry_policy.max_attempts'],
      ['an initial interval of 0', llm({ retry_policy: { initial_interval_seconds: 0 } }), 'retry_policy.initial_interval_seconds'],
      [
        'an initial interval of 1e-7 s (no duration Temporal reads)',
        llm({ retry_policy: { initial_interval_seconds: 1e-7 } }),
        'retry_policy.initial_interval_seconds',
      ],
      [
        'an interval of a millisecond and a half',
        llm({ retry_policy: { maximum_interval_seconds: 1.0015 } }),
        'retry_policy.maximum_interval_seconds',
      ],
      ['a backoff under 1', llm({ retry_policy: { backoff_coefficient: 0.5 } }), 'retry_policy.backoff_coefficient'],
      ['a maximum interval of 0', llm({ retry_policy: { maximum_interval_seconds: 0 } }), 'retry_policy.maximum_interval_seconds'],
      [
        'a maximum interval under the initial one',
        llm({ retry_policy: { initial_interval_seconds: 5, maximum_interval_seconds: 2 } }),
        'retry_policy.maximum_interval_seconds',
      ],
      ['an unknown retry field', llm({ retry_policy: { jitter: true } }), 'retry_policy.jitter'],
      ['no stop conditions', checker({ stop_conditions: [] }), 'stop_conditions'],
      ['a missing stop_conditions', without(checker(), 'stop_conditions'), 'stop_conditions'],
      ['a model field on a stop checker', checker({ model: 'm' }), 'model'],
      ['an unknown operator', checker({ stop_conditions: [condition({ operator: 'like' })] }), 'stop_conditions[0].operator'],
      [
        'a condition without target_value',
        checker({ stop_conditions: [without(condition(), 'target_value')] }),
        'stop_conditions[0].target_value',
      ],
      [
        'a condition naming no uuid',
        checker({ stop_conditions: [condition({ step_definition_uuid: 'first' })] }),
        'stop_conditions[0].step_definition_uuid',
      ],
      [
        'an empty JSONPath',
        checker({ stop_conditions: [condition({ extraction_json_path: '' })] }),
        'stop_conditions[0].extraction_json_path',
      ],
      ['an unknown condition field', checker({ stop_conditions: [condition({ note: 'x' })] }), 'stop_conditions[0].note'],
    ])('refuses %s with VALIDATION_FAILED naming %s', (_case, body, field) => {
      const error = errorOf(() => parseStep(body, '', randomUUID));
      expect(error).toMatchObject({ code: ErrorCode.ValidationFailed, details: { field } });
      expect(error.message).toContain(field);
    });

    it('prefixes fields', () => {
      expect(errorOf(() => parseStep(llm({ retry_policy: { max_attempts: 0 } }), 'steps[3]', randomUUID)).details.field).toBe(
        'steps[3].retry_policy.max_attempts',
      );
    });

    it('says a blank name is blank and a missing one is required', () => {
      expect(errorOf(() => parseStep(llm({ name: ' ' }), '', randomUUID)).message).toBe('name must not be blank');
      expect(errorOf(() => parseStep(without(llm(), 'name'), '', randomUUID)).message).toBe('name is required');
    });

    it('lists every problem, the first one giving code, message and field', () => {
      const error = errorOf(() =>
        parseStep(llm({ system_prompt: '', colour: 'red', output_schema: { type: 'bogus' } }), 'steps[0]', randomUUID),
      );
      expect(error.details.field).toBe(fieldsOf(error)[0]);
      expect(error.details.errors).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ code: ErrorCode.ValidationFailed, field: 'steps[0].system_prompt' }),
          expect.objectContaining({ code: ErrorCode.ValidationFailed, field: 'steps[0].colour' }),
          expect.objectContaining({ code: ErrorCode.InvalidOutputSchema, field: 'steps[0].output_schema' }),
        ]),
      );
    });
  });

  describe('content', () => {
    it.each([
      ['an unknown type', { type: 'bogus' }],
      ['a minimum that is not a number', { type: 'number', minimum: 'low' }],
      ['an unsupported $schema', { $schema: 'http://json-schema.org/draft-03/schema#', type: 'object' }],
    ])('refuses an output_schema with %s as INVALID_OUTPUT_SCHEMA', (_case, output_schema) => {
      const error = errorOf(() => parseStep(agent({ output_schema }), '', randomUUID));
      expect(error).toMatchObject({ code: ErrorCode.InvalidOutputSchema, details: { field: 'output_schema' } });
    });

    it.each([['<<step_output.>>'], ['<<unknown_thing>>'], ['<<step_output.abc>>'], ['<<trigger_output.>>'], ['<<previous_output>>']])(
      'refuses the malformed placeholder %s',
      (token) => {
        const error = errorOf(() => parseStep(llm({ system_prompt: `Use ${token} please` }), 'steps[2]', randomUUID));
        expect(error).toMatchObject({ code: ErrorCode.InvalidPlaceholder, details: { field: 'steps[2].system_prompt' } });
        expect(error.message).toContain(token);
      },
    );

    it('reports each malformed placeholder once', () => {
      const error = errorOf(() => parseStep(llm({ system_prompt: '<<a>> <<b>> <<a>>' }), '', randomUUID));
      expect(codesOf(error)).toEqual([ErrorCode.InvalidPlaceholder, ErrorCode.InvalidPlaceholder]);
    });

    it('accepts well-formed placeholders of every kind', () => {
      const prompt = `<<trigger_output>> <<trigger_output.a[0]>> <<step_output.${randomUUID()}.b>> <<step_output.${randomUUID()}[-2].c|none>> $previous_output.d`;
      expect(() => parseStep(llm({ system_prompt: prompt }), '', randomUUID)).not.toThrow();
    });

    it.each([['alerts['], ['$.alerts['], ['status'], ['$.a[?(@.x >)]']])('refuses the JSONPath %s as INVALID_JSON_PATH', (path) => {
      const body = checker({ stop_conditions: [condition(), condition({ extraction_json_path: path })] });
      const error = errorOf(() => parseStep(body, '', randomUUID));
      expect(error).toMatchObject({ code: ErrorCode.InvalidJsonPath, details: { field: 'stop_conditions[1].extraction_json_path' } });
    });
  });
});

describe('human_input steps', () => {
  const human = (overrides: Body = {}): Body => ({ type: 'human_input', name: 'approve', prompt: 'Approve?', ...overrides });

  it('keeps prompt, input_schema, timeout_seconds and default', () => {
    const body = human({ input_schema: { type: 'boolean' }, timeout_seconds: 60, default: false });
    expect(parseStep(body, '', randomUUID)).toMatchObject({
      type: 'human_input',
      prompt: 'Approve?',
      input_schema: { type: 'boolean' },
      timeout_seconds: 60,
      default: false,
    });
  });

  it('requires a prompt, and refuses an invalid input_schema or a default that breaks it', () => {
    expect(errorOf(() => parseStep(human({ prompt: undefined }), 'steps[1]', randomUUID))).toMatchObject({
      code: ErrorCode.ValidationFailed,
      details: { field: 'steps[1].prompt' },
    });
    expect(errorOf(() => parseStep(human({ input_schema: { type: 'nonsense' } }), '', randomUUID))).toMatchObject({
      code: ErrorCode.InvalidOutputSchema,
      details: { field: 'input_schema' },
    });
    expect(errorOf(() => parseStep(human({ input_schema: { type: 'boolean' }, default: 'no' }), '', randomUUID))).toMatchObject({
      code: ErrorCode.ValidationFailed,
      details: { field: 'default' },
    });
  });
});

describe(parseTrigger.name, () => {
  it('fills in defaults and a uuid', () => {
    expect(parseTrigger({ type: 'manual' }, '', () => 'u')).toEqual({
      uuid: 'u',
      type: 'manual',
      filter_rules: {},
      initial_data_description: '',
    });
  });

  it('keeps given fields, the uuid lower-cased', () => {
    const uuid = randomUUID();
    const rules = { all: [{ path: '$.type', operator: 'equals', value: 'order.created' }] };
    const body = { uuid: uuid.toUpperCase(), type: 'webhook', filter_rules: rules, initial_data_description: 'an order' };
    expect(parseTrigger(body, '', randomUUID)).toEqual({ ...body, uuid });
  });

  it.each(['manual', 'webhook', 'schedule'])('accepts the %s type', (type) => {
    expect(parseTrigger({ type }, '', randomUUID).type).toBe(type);
  });

  it.each([
    ['an unknown type', { type: 'email' }],
    ['no type', {}],
  ])('refuses %s with UNKNOWN_TRIGGER_TYPE', (_case, body) => {
    expect(errorOf(() => parseTrigger(body, '', randomUUID))).toMatchObject({
      code: ErrorCode.UnknownTriggerType,
      details: { field: 'type' },
    });
    expect(errorOf(() => parseTrigger(body, 'trigger', randomUUID)).details.field).toBe('trigger.type');
  });

  it.each([
    ['a body that is not an object', 'manual', 'body'],
    ['filter rules that are not an object', { type: 'webhook', filter_rules: [] }, 'filter_rules'],
    [
      'a rule without a JSONPath',
      { type: 'webhook', filter_rules: { all: [{ path: 'type', operator: 'exists' }] } },
      'filter_rules.all[0].path',
    ],
    [
      'a rule with an unknown operator',
      { type: 'webhook', filter_rules: { path: '$.a', operator: 'like', value: 1 } },
      'filter_rules.operator',
    ],
    ['a description that is not text', { type: 'manual', initial_data_description: 1 }, 'initial_data_description'],
    ['an unknown field', { type: 'schedule', cron: '* * * * *' }, 'cron'],
    ['a uuid that is not a uuid', { type: 'manual', uuid: 'x' }, 'uuid'],
  ])('refuses %s with VALIDATION_FAILED', (_case, body, field) => {
    expect(errorOf(() => parseTrigger(body, '', randomUUID))).toMatchObject({ code: ErrorCode.ValidationFailed, details: { field } });
  });

  it('reports a filter-rule problem once', () => {
    const error = errorOf(() =>
      parseTrigger({ type: 'webhook', filter_rules: { path: '$.a', operator: 'like', value: 1 } }, 'trigger', randomUUID),
    );
    expect(fieldsOf(error)).toEqual(['trigger.filter_rules.operator']);
  });
});

describe(parseWorkflowInput.name, () => {
  it('fills in the defaults', () => {
    expect(parseWorkflowInput({ name: 'wf' }, randomUUID)).toEqual({
      name: 'wf',
      description: '',
      is_active: true,
      status: 'active',
      notify_url: null,
      notify_on_complete: false,
      notify_on_failure: true,
      tool_drift: 'warn',
      steps: [],
      trigger: null,
      graph: null,
    });
  });

  it('parses inline steps in order and a trigger', () => {
    const uuid = randomUUID();
    const first = llm();
    const second = llm({ system_prompt: 'Label $previous_output' });
    const workflow = parseWorkflowInput(
      { uuid: uuid.toUpperCase(), name: 'wf', is_active: false, steps: [first, second], trigger: { type: 'manual' } },
      sequence(),
    );
    expect(workflow).toMatchObject({ uuid, is_active: false, trigger: { type: 'manual', filter_rules: {} } });
    expect(workflow.steps.map((step) => step.name)).toEqual([first.name, second.name]);
    expect(workflow.steps.map((step) => step.uuid)).toEqual([
      '00000000-0000-4000-8000-000000000001',
      '00000000-0000-4000-8000-000000000002',
    ]);
  });

  it('keeps the notification, status and tool drift fields', () => {
    const body = {
      name: 'wf',
      status: 'paused',
      notify_url: 'https://example.com/hook',
      notify_on_complete: true,
      notify_on_failure: false,
      tool_drift: 'fail',
    };
    expect(parseWorkflowInput(body, randomUUID)).toMatchObject(body);
  });

  it('accepts a null trigger', () => {
    expect(parseWorkflowInput({ name: 'wf', trigger: null }, randomUUID).trigger).toBeNull();
  });

  it.each([
    ['a body that is not an object', ['wf'], 'body'],
    ['a missing name', {}, 'name'],
    ['a blank name', { name: ' ' }, 'name'],
    ['an unknown field', { name: 'wf', owner: 'me' }, 'owner'],
    ['is_active that is not a boolean', { name: 'wf', is_active: 'yes' }, 'is_active'],
    ['an unknown status', { name: 'wf', status: 'deleted' }, 'status'],
    ['a notify_url that is not http', { name: 'wf', notify_url: 'ftp://example.com' }, 'notify_url'],
    ['steps that are not an array', { name: 'wf', steps: {} }, 'steps'],
    ['a trigger that is not an object', { name: 'wf', trigger: 'manual' }, 'trigger'],
    ['a step that is not valid', { name: 'wf', steps: [llm(), llm({ model: '' })] }, 'steps[1].model'],
    ['a step that is not an object', { name: 'wf', steps: [llm(), 'step'] }, 'steps[1]'],
  ])('refuses %s with VALIDATION_FAILED', (_case, body, field) => {
    expect(errorOf(() => parseWorkflowInput(body, randomUUID))).toMatchObject({ code: ErrorCode.ValidationFailed, details: { field } });
  });

  it('names the step and trigger types by their place', () => {
    expect(errorOf(() => parseWorkflowInput({ name: 'wf', steps: [llm(), { type: 'x' }] }, randomUUID))).toMatchObject({
      code: ErrorCode.UnknownStepType,
      details: { field: 'steps[1].type' },
    });
    expect(errorOf(() => parseWorkflowInput({ name: 'wf', trigger: { type: 'email' } }, randomUUID))).toMatchObject({
      code: ErrorCode.UnknownTriggerType,
      details: { field: 'trigger.type' },
    });
  });

  it('lists the problems of the workflow, every step and the trigger in one error', () => {
    const error = errorOf(() =>
      parseWorkflowInput(
        { name: '', steps: [{ type: 'x' }, llm({ system_prompt: '<<oops>>' }), llm({ model: '' })], trigger: { type: 'email' } },
        randomUUID,
      ),
    );
    expect(error).toMatchObject({ code: ErrorCode.ValidationFailed, details: { field: 'name' } });
    expect(fieldsOf(error)).toEqual(['name', 'steps[0].type', 'steps[1].system_prompt', 'steps[2].model', 'trigger.type']);
    expect(codesOf(error)).toEqual([
      ErrorCode.ValidationFailed,
      ErrorCode.UnknownStepType,
      ErrorCode.InvalidPlaceholder,
      ErrorCode.ValidationFailed,
      ErrorCode.UnknownTriggerType,
    ]);
  });

  it('checks the chain once every step parses', () => {
    const error = errorOf(() => parseWorkflowInput({ name: 'wf', steps: [llm({ name: 'Fetch' }), llm({ name: 'fetch' })] }, randomUUID));
    expect(error).toMatchObject({ code: ErrorCode.DuplicateStepName, details: { field: 'steps[1].name' } });
  });

  it('does not check the chain while a step is invalid', () => {
    const error = errorOf(() => parseWorkflowInput({ name: 'wf', steps: [llm({ name: 'a' }), llm({ name: 'a', model: '' })] }, randomUUID));
    expect(fieldsOf(error)).toEqual(['steps[1].model']);
  });

  it('refuses a reference to a later step of the same body', () => {
    const later = randomUUID();
    const error = errorOf(() =>
      parseWorkflowInput({ name: 'wf', steps: [llm({ system_prompt: `<<step_output.${later}>>` }), llm({ uuid: later })] }, randomUUID),
    );
    expect(error).toMatchObject({ code: ErrorCode.ForwardStepReference, details: { field: 'steps[0].system_prompt' } });
  });
});

describe(parseWorkflowPatch.name, () => {
  it('takes the workflow fields given, and only those', () => {
    expect(parseWorkflowPatch({ name: 'x' })).toEqual({ name: 'x' });
    const all = {
      name: 'n',
      description: 'd',
      is_active: false,
      status: 'archived',
      notify_url: null,
      notify_on_complete: true,
      notify_on_failure: false,
      tool_drift: 'fail',
    };
    expect(parseWorkflowPatch(all)).toEqual(all);
  });

  it.each([
    ['steps', { steps: [] }, 'steps'],
    ['the trigger', { trigger: null }, 'trigger'],
    ['the uuid', { uuid: randomUUID() }, 'uuid'],
    ['nothing', {}, 'body'],
    ['a body that is not an object', 'x', 'body'],
    ['a blank name', { name: '' }, 'name'],
    ['is_active that is not a boolean', { is_active: 1 }, 'is_active'],
    ['an unknown status', { status: 'gone' }, 'status'],
    ['an unknown tool_drift', { tool_drift: 'ignore' }, 'tool_drift'],
  ])('refuses %s', (_case, body, field) => {
    expect(errorOf(() => parseWorkflowPatch(body))).toMatchObject({ code: ErrorCode.ValidationFailed, details: { field } });
  });
});

describe(parseWorkflowDocument.name, () => {
  const definition = (): WorkflowDefinition => {
    const first = parseStep(llm({ description: 'first' }), '', randomUUID);
    const second = parseStep(
      agent({ system_prompt: `Use <<step_output.${first.uuid}.items[0]>>`, tools: ['http_request'], max_iterations: 3 }),
      '',
      randomUUID,
    );
    const stop = parseStep(checker({ stop_conditions: [condition({ step_definition_uuid: second.uuid })] }), '', randomUUID);
    return {
      uuid: randomUUID(),
      name: 'exported',
      description: 'round trip',
      is_active: true,
      status: 'paused',
      notify_url: 'https://example.com/n',
      notify_on_complete: true,
      notify_on_failure: true,
      tool_drift: 'fail',
      steps: [first, second, stop],
      trigger: parseTrigger({ type: 'webhook', filter_rules: { path: '$.a', operator: 'exists' } }, '', randomUUID),
    };
  };

  it('reads back exactly what export writes: a chain is written as its graph of ALWAYS edges and read back as the chain', () => {
    const workflow = { ...definition(), graph: null };
    const document = toWorkflowDocument(workflow, () => randomUUID());
    const [first, second, stop] = workflow.steps.map((step) => step.uuid);
    expect(document).toEqual({
      format: WORKFLOW_DOCUMENT_FORMAT,
      workflow: { ...workflow, graph: { entry_node: first, edges: expect.any(Array) } },
    });
    expect(document.workflow.graph!.edges.map((edge) => [edge.source_step_uuid, edge.target_step_uuid, edge.condition_type])).toEqual([
      [first, second, 'ALWAYS'],
      [second, stop, 'ALWAYS'],
      [stop, null, 'ALWAYS'],
    ]);
    expect(parseWorkflowDocument(JSON.parse(JSON.stringify(document)), randomUUID)).toEqual(workflow);
  });

  it('accepts the tool manifest export adds, and leaves it out of the definition', () => {
    const workflow = { ...definition(), graph: null };
    const document = toWorkflowDocument(workflow, () => randomUUID(), [{ name: 'http_request', missing: true }]);
    expect(document.tool_manifest).toEqual([{ name: 'http_request', missing: true }]);
    expect(parseWorkflowDocument(JSON.parse(JSON.stringify(document)), randomUUID)).toEqual(workflow);
  });

  it('reads the document as JSON text too', () => {
    const workflow = { ...definition(), graph: null };
    expect(parseWorkflowDocument(JSON.stringify(toWorkflowDocument(workflow, () => randomUUID())), randomUUID)).toEqual(workflow);
  });

  it('accepts a document without uuids, giving steps and trigger new ones', () => {
    const parsed = parseWorkflowDocument(
      { format: WORKFLOW_DOCUMENT_FORMAT, workflow: { name: 'new', steps: [llm()], trigger: { type: 'manual' } } },
      sequence(),
    );
    expect(parsed).not.toHaveProperty('uuid');
    expect(parsed.steps[0].uuid).toBe('00000000-0000-4000-8000-000000000001');
    expect(parsed.trigger?.uuid).toBe('00000000-0000-4000-8000-000000000002');
  });

  it.each([
    ['a body that is not an object', [1, 2], 'body'],
    ['null', null, 'body'],
    ['text that is not JSON', '{"format": ', 'body'],
    ['JSON text that is not an object', '"nope"', 'body'],
    ['a document without format', { workflow: { name: 'x' } }, 'format'],
    ['another format', { format: 'stepwise.workflow/v2', workflow: { name: 'x' } }, 'format'],
    ['a document without workflow', { format: WORKFLOW_DOCUMENT_FORMAT }, 'workflow'],
    ['a workflow that is not an object', { format: WORKFLOW_DOCUMENT_FORMAT, workflow: [] }, 'workflow'],
  ])('refuses %s with IMPORT_UNPARSEABLE', (_case, body, field) => {
    expect(errorOf(() => parseWorkflowDocument(body, randomUUID))).toMatchObject({ code: ErrorCode.ImportUnparseable, details: { field } });
  });

  it('refuses unknown fields beside format and workflow', () => {
    const error = errorOf(() =>
      parseWorkflowDocument({ format: WORKFLOW_DOCUMENT_FORMAT, workflow: { name: 'x' }, exported_at: 'now' }, randomUUID),
    );
    expect(error).toMatchObject({ code: ErrorCode.ValidationFailed, details: { field: 'exported_at' } });
  });

  it('names fields inside the workflow with workflow.', () => {
    const at = (workflow: unknown) => errorOf(() => parseWorkflowDocument({ format: WORKFLOW_DOCUMENT_FORMAT, workflow }, randomUUID));
    expect(at({ name: 'x', steps: [{ type: 'nope' }] })).toMatchObject({
      code: ErrorCode.UnknownStepType,
      details: { field: 'workflow.steps[0].type' },
    });
    expect(at({ steps: [] }).details.field).toBe('workflow.name');
    expect(at({ name: 'x', trigger: { type: 'manual', filter_rules: { path: 'a', operator: 'exists' } } }).details.field).toBe(
      'workflow.trigger.filter_rules.path',
    );
    const unknown = at({ name: 'x', steps: [llm({ system_prompt: `<<step_output.${randomUUID()}>>` })] });
    expect(unknown).toMatchObject({ code: ErrorCode.UnknownStepReference, details: { field: 'workflow.steps[0].system_prompt' } });
  });
});

describe(checkPermutation.name, () => {
  const ids = [randomUUID(), randomUUID(), randomUUID()];
  const stranger = randomUUID();

  it('gives the new order', () => {
    expect(checkPermutation(ids, [ids[2], ids[0], ids[1]])).toEqual([ids[2], ids[0], ids[1]]);
  });

  it('matches uuids case-insensitively and answers them lower-cased', () => {
    expect(checkPermutation(ids, [ids[1].toUpperCase(), ids[0], ids[2]])).toEqual([ids[1], ids[0], ids[2]]);
  });

  it('accepts an empty order of an empty chain', () => {
    expect(checkPermutation([], [])).toEqual([]);
  });

  it.each([
    ['a missing step', [ids[0], ids[1]], { missing: [ids[2]], extra: [], duplicates: [] }],
    ['a repeated step', [ids[0], ids[0], ids[1], ids[2]], { missing: [], extra: [], duplicates: [ids[0]] }],
    ['a step of another workflow', [ids[0], ids[1], ids[2], stranger], { missing: [], extra: [stranger], duplicates: [] }],
    ['a swap of one step for another', [ids[0], ids[1], stranger], { missing: [ids[2]], extra: [stranger], duplicates: [] }],
  ])('refuses %s, saying what is wrong', (_case, proposed, details) => {
    const error = errorOf(() => checkPermutation(ids, proposed));
    expect(error).toMatchObject({ code: ErrorCode.NotAPermutation, details: { field: 'step_uuids', ...details } });
  });

  it.each([
    ['not an array', 'abc'],
    ['absent', undefined],
    ['an array of numbers', [1, 2, 3]],
  ])('refuses a proposal that is %s', (_case, proposed) => {
    expect(errorOf(() => checkPermutation(ids, proposed))).toMatchObject({
      code: ErrorCode.NotAPermutation,
      details: { field: 'step_uuids' },
    });
  });

  it('names the field it is given', () => {
    expect(errorOf(() => checkPermutation(ids, [], 'order')).details.field).toBe('order');
  });
});
