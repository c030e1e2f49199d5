// The assistant end to end: a session on Temporal, its turns streamed over SSE from MySQL, the
// model fake playing the model, the dry run on the real run workflow and the save through the REST service.
import { ASSISTANT_WORKFLOW_TYPE, assistantWorkflowId, type AssistantSessionInput } from '../libs/contracts/src';
import { chainCandidate, clarifier, newSession, SAVED_AT_FIRST_ATTEMPT, sendMessage, shapeOf } from './support/assistant';
import { reply } from './support/model-fake';
import { useStack, type Stack } from './support/stack';

describe('Assistant', () => {
  let stack: Stack;
  useStack((started) => (stack = started));

  it('asks one question, then writes a workflow whose validation issue a correction round fixes, dry-runs it and saves it', async () => {
    const session = await newSession(stack.user);
    stack.model.script(clarifier.asks('Which language should the summary be in?'));
    const first = await sendMessage(stack.user, session, 'Summarise the articles I send');
    expect(first.status).toBe(200);
    const asked = await first.done;
    expect(asked.map((event) => [event.data.response_type, event.data.message, event.data.is_final])).toEqual([
      ['MESSAGE', 'Which language should the summary be in?', true],
    ]);

    const broken = chainCandidate(undefined, true);
    const fixed = { ...chainCandidate(broken.name), steps: chainCandidate().steps };
    stack.model.script(
      clarifier.ready(),
      reply.toolCalls([{ name: 'list_step_types', arguments: {} }]),
      reply.json(broken),
      reply.json(fixed),
    );
    const events = await (await sendMessage(stack.user, session, 'English, three bullet points')).done;

    expect(events.map(shapeOf)).toEqual([
      'STATUS_CHANGE:clarification>workflow_generation',
      'WORKFLOW',
      'STATUS_CHANGE:workflow_generation>validation',
      'STATUS_CHANGE:validation>workflow_generation',
      ...SAVED_AT_FIRST_ATTEMPT.slice(1),
    ]);
    expect(events.every((event, i) => event.data.session_id === session && event.data.is_final === (i === events.length - 1))).toBe(true);
    expect(events.map((event) => event.id)).toEqual(events.map((_, i) => events[0].id + i));
    expect(events[3].data.issues).toEqual([expect.objectContaining({ code: 'UNKNOWN_STEP_REFERENCE', field: 'steps[1].system_prompt' })]);
    const saved = events[events.length - 2].data;
    expect(saved).toMatchObject({ workflow: fixed, workflow_uuid: expect.any(String), saved_workflow: { name: fixed.name } });

    // What reached the model: the conversation, the tool's answer, then the issue named with its field.
    const [clarify, , afterTool, correction] = stack.model.requests.slice(1).map((request) => request.body);
    expect(clarify.messages.filter((m) => m.role !== 'system').map((m) => m.content)).toEqual([
      'Summarise the articles I send',
      'Which language should the summary be in?',
      'English, three bullet points',
    ]);
    expect(clarify.response_format).toEqual({ type: 'json_object' });
    expect(afterTool.messages.find((m) => m.role === 'tool')?.content).toContain('custom_llm');
    expect(afterTool.tools?.map((tool) => tool.function.name).sort()).toEqual([
      'get_step_type',
      'get_workflow',
      'list_step_types',
      'list_tools',
    ]);
    // The very tools the MCP server offers: the same names, descriptions and input schemas, in its order.
    const offered = (await stack.user.get('/mcp/tools')).body.tools as { name: string; description: string; inputSchema: unknown }[];
    const mcpTools = offered.filter((tool) => afterTool.tools?.some((given) => given.function.name === tool.name));
    expect(afterTool.tools?.map((tool) => tool.function)).toEqual(
      mcpTools.map(({ name, description, inputSchema }) => ({ name, description, parameters: inputSchema })),
    );
    expect(correction.messages[correction.messages.length - 1].content).toMatch(/UNKNOWN_STEP_REFERENCE at steps\[1\]\.system_prompt/);

    const workflow = await stack.user.get(`/workflows/${saved.workflow_uuid}/details`);
    expect(workflow.body.steps.map((step: { name: string }) => step.name)).toEqual(['summarise', 'translate']);
    const runs = await stack.user.get(`/workflows/${saved.workflow_uuid}/runs`);
    expect(runs.body.items).toEqual([expect.objectContaining({ status: 'completed', dry_run: true })]);
    const state = await stack.user.get(`/assistant/sessions/${session}`);
    expect(state.body).toMatchObject({
      stage: 'completed',
      previous_stage: 'saving',
      workflow_uuid: saved.workflow_uuid,
      pending_questions: [],
      final_error_message: null,
      intent_summary: 'Summarise English articles in three bullet points',
    });
    expect(state.body.tokens.total).toBe(5 * 15);
    // Still open: the next message would edit what it saved (test/assistant-conversation.e2e-spec.ts).
    expect(state.body.is_open).toBe(true);
    expect(saved.is_edit).toBe(false);
  });

  it('feeds a failed dry run back to the model, which fixes it before anything is saved', async () => {
    const session = await newSession(stack.user);
    const looping = chainCandidate();
    // Valid, but its loop reads trigger_output.items, which the dry run's trigger data lacks: the run fails.
    looping.steps[0] = { ...looping.steps[0], loop: { type: 'for_each', input_path: '<<trigger_output.items>>' } };
    const fixed = chainCandidate(looping.name);
    stack.model.script(clarifier.ready(), reply.json(looping), reply.json(fixed));
    const events = await (await sendMessage(stack.user, session, 'Summarise each item I send')).done;

    expect(events.map(shapeOf)).toEqual([
      ...SAVED_AT_FIRST_ATTEMPT.slice(0, 4),
      'STATUS_CHANGE:dry_run>workflow_generation',
      ...SAVED_AT_FIRST_ATTEMPT.slice(1),
    ]);
    const failed = events[4].data.dry_run;
    expect(failed).toMatchObject({ status: 'failed', error_message: expect.stringMatching(/input_path/) });
    const correction = stack.model.requests[2].body.messages;
    expect(correction[correction.length - 1].content).toContain(`dry run failed: ${failed.error_message}`);
    const saved = events[events.length - 2].data.workflow_uuid;
    const runs = (await stack.user.get(`/workflows/${saved}/runs`)).body.items;
    expect(runs.map((run: { status: string; dry_run: boolean; uuid: string }) => [run.status, run.dry_run]).sort()).toEqual([
      ['completed', true],
      ['failed', true],
    ]);
    expect(runs.find((run: { status: string }) => run.status === 'failed').uuid).toBe(failed.run_uuid);
    expect((await stack.user.get(`/workflows/${saved}/details`)).body.steps[0].loop ?? null).toBeNull();
  });

  it('fails the turn, with an ERROR event the person can act on and final_error_message, when the corrections run out', async () => {
    const session = await newSession(stack.user);
    const broken = chainCandidate(undefined, true);
    stack.model.script(clarifier.ready(), ...[0, 1, 2, 3].map(() => reply.json(broken)));
    const events = await (await sendMessage(stack.user, session, 'Summarise')).done;

    const last = events[events.length - 1].data;
    expect(events.slice(-2).map(shapeOf)).toEqual(['STATUS_CHANGE:workflow_generation>failed', 'ERROR']);
    expect(last).toMatchObject({
      is_final: true,
      error: { error_code: 'CORRECTIONS_EXHAUSTED', message: expect.stringContaining('3 correction rounds'), is_recoverable: true },
    });
    const state = (await stack.user.get(`/assistant/sessions/${session}`)).body;
    expect(state).toMatchObject({ stage: 'failed', workflow_uuid: null, final_error_message: last.error.message, is_open: true });
    expect((await stack.user.get('/workflows')).body.items.map((w: { name: string }) => w.name)).not.toContain(broken.name);
  });

  it('edits a workflow in place: the model reads it with get_workflow and its answer replaces it', async () => {
    const source = await stack.createWorkflow([chainCandidate().steps[0]]);
    const session = await newSession(stack.user, { mode: 'edit', source_workflow_uuid: source.uuid });
    const edited = { ...chainCandidate(`edited-${source.name}`), steps: [{ ...source.steps[0], name: 'summarise briefly' }] };
    stack.model.script(
      clarifier.ready('Make the summary brief'),
      reply.toolCalls([{ name: 'get_workflow', arguments: { workflow_uuid: source.uuid } }]),
      reply.json(edited),
    );
    const events = await (await sendMessage(stack.user, session, 'Make it brief')).done;

    expect(events.map(shapeOf)).toEqual(SAVED_AT_FIRST_ATTEMPT);
    expect(events[events.length - 2].data.workflow_uuid).toBe(source.uuid);
    // Without a dataset, the dry run runs on the person's intent and reports no case.
    const dryRun = events.find((event) => event.data.dry_run)!.data.dry_run;
    expect(dryRun.dataset).toBeUndefined();
    expect((await stack.user.get(`/runs/${dryRun.run_uuid}`)).body.trigger_output.raw_data).toEqual({ text: 'Make the summary brief' });
    const [, generation, afterTool] = stack.model.requests.map((request) => request.body.messages);
    expect(generation[1].content).toContain(`Start from workflow ${source.uuid}`);
    expect(JSON.parse(afterTool[afterTool.length - 1].content ?? '{}')).toMatchObject({ uuid: source.uuid, name: source.name });
    const now = (await stack.user.get(`/workflows/${source.uuid}/details`)).body;
    expect(now).toMatchObject({ name: edited.name, steps: [{ uuid: source.steps[0].uuid, name: 'summarise briefly' }] });
    expect((await stack.user.get(`/assistant/sessions/${session}`)).body).toMatchObject({
      mode: 'edit',
      source_workflow_uuid: source.uuid,
      workflow_uuid: source.uuid,
    });
  });

  it('dry-runs an edit of a workflow that has a dataset on its first case, and reports that case’s assertions', async () => {
    const source = await stack.createWorkflow([chainCandidate().steps[0]]);
    const cases = [
      {
        name: 'short text',
        trigger_output: { text: 'from the dataset' },
        assertions: [
          { kind: 'max_tokens', value: 1_000_000 },
          { kind: 'condition', path: '$', operator: 'equals', value: 'an answer the dry run never gives' },
          { kind: 'judge', criteria: 'It is brief', model: 'gpt-4o-mini' },
        ],
      },
    ];
    expect(await stack.user.post(`/workflows/${source.uuid}/datasets`, { name: 'smoke', cases })).toMatchObject({ status: 200 });
    const session = await newSession(stack.user, { mode: 'edit', source_workflow_uuid: source.uuid });
    const edited = { ...chainCandidate(`edited-${source.name}`), steps: [{ ...source.steps[0], name: 'summarise briefly' }] };
    stack.model.script(clarifier.ready('Make the summary brief'), reply.json(edited));
    const events = await (await sendMessage(stack.user, session, 'Make it brief')).done;

    expect(events.map(shapeOf)).toEqual(SAVED_AT_FIRST_ATTEMPT);
    const dryRun = events.find((event) => event.data.dry_run)!.data.dry_run;
    expect(dryRun).toMatchObject({
      status: 'completed',
      dataset: { dataset: 'smoke', case: 'short text', passed: 1, failed: 1, skipped: 1 },
    });
    expect(dryRun.dataset.assertions).toEqual([
      expect.objectContaining({ name: 'tokens <= 1000000', passed: true }),
      expect.objectContaining({ name: '$ equals "an answer the dry run never gives"', passed: false }),
      { name: 'judge: It is brief', skipped: expect.stringContaining('not asked of a dry run') },
    ]);
    const run = (await stack.user.get(`/runs/${dryRun.run_uuid}`)).body;
    expect(run).toMatchObject({ dry_run: true, trigger_output: { raw_data: { text: 'from the dataset' } } });
  });

  it('copies a workflow: a step uuid kept from the source goes back to the model, the answer is saved as a new workflow and the source stays as it was', async () => {
    const source = await stack.createWorkflow([chainCandidate().steps[0]]);
    const session = await newSession(stack.user, {
      mode: 'copy',
      source_workflow_uuid: source.uuid,
      provider: 'openai',
      model: 'test-model',
    });
    const copy = chainCandidate(`copy-of-${source.name}`);
    const keptUuid = { ...copy, steps: [{ ...copy.steps[0], uuid: source.steps[0].uuid }] };
    stack.model.script(clarifier.ready(), reply.json(keptUuid), reply.json(copy));
    const events = await (await sendMessage(stack.user, session, 'The same, plus a translation')).done;

    expect(events.map(shapeOf)).toEqual([
      ...SAVED_AT_FIRST_ATTEMPT.slice(0, 3),
      'STATUS_CHANGE:validation>workflow_generation',
      ...SAVED_AT_FIRST_ATTEMPT.slice(1),
    ]);
    expect(events[3].data.issues).toEqual([
      { code: 'CONFLICT', field: 'steps[0].uuid', message: expect.stringContaining(source.steps[0].uuid) },
    ]);
    const saved = events[events.length - 2].data.workflow_uuid;
    expect(saved).not.toBe(source.uuid);
    expect(stack.model.requests.every((request) => request.body.model === 'test-model')).toBe(true);
    expect((await stack.user.get(`/workflows/${saved}/details`)).body.steps.map((step: { name: string }) => step.name)).toEqual([
      'summarise',
      'translate',
    ]);
    expect((await stack.user.get(`/workflows/${source.uuid}/details`)).body).toMatchObject({
      name: source.name,
      steps: [{ uuid: source.steps[0].uuid }],
    });
  });
});

describe('Assistant limits as set (ASSISTANT_MAX_TOOL_ROUNDS=1, ASSISTANT_CORRECTION_ROUNDS=1, ASSISTANT_MESSAGE_MAX_CHARS=40)', () => {
  let stack: Stack;
  useStack((started) => (stack = started), { assistant: { maxToolRounds: 1, correctionRounds: 1, messageMaxChars: 40 } });

  it("takes the API's rounds in its input: one round of tool calls, then the model must answer; one correction, then CORRECTIONS_EXHAUSTED", async () => {
    const session = await newSession(stack.user);
    const broken = chainCandidate(undefined, true);
    stack.model.script(
      clarifier.ready(),
      reply.toolCalls([{ name: 'list_step_types', arguments: {} }]),
      reply.json(broken),
      reply.json(broken),
    );
    const events = await (await sendMessage(stack.user, session, 'Summarise')).done;

    expect(events[events.length - 1].data.error).toMatchObject({
      error_code: 'CORRECTIONS_EXHAUSTED',
      message: expect.stringContaining('after 1 correction rounds'),
    });
    const [, withTools, afterTools, correction] = stack.model.requests.map((request) => request.body);
    expect(withTools.tools?.length).toBeGreaterThan(0);
    expect(afterTools.tools ?? []).toEqual([]);
    expect(correction.tools?.length).toBeGreaterThan(0);
    expect(withTools.messages[0].content).toContain('at most 1 rounds of tool calls');
  });

  it('goes on with 5 tool rounds and 3 corrections in a session whose input carries none (started before the setting)', async () => {
    const session = await newSession(stack.user);
    const client = await stack.temporal();
    const workflowId = assistantWorkflowId(session);
    await client.workflow.getHandle(workflowId).terminate('started again as an older API started it');
    const input: AssistantSessionInput = { session_uuid: session, user_id: stack.user.userId, mode: 'create', source_workflow_uuid: null };
    await client.workflow.start(ASSISTANT_WORKFLOW_TYPE, { workflowId, taskQueue: stack.api.config.temporal.taskQueue, args: [input] });
    const broken = chainCandidate(undefined, true);
    const listing = reply.toolCalls([{ name: 'list_step_types', arguments: {} }]);
    stack.model.script(clarifier.ready(), listing, listing, reply.json(broken), ...[1, 2, 3].map(() => reply.json(broken)));
    const events = await (await sendMessage(stack.user, session, 'Summarise')).done;

    expect(events[events.length - 1].data.error).toMatchObject({
      error_code: 'CORRECTIONS_EXHAUSTED',
      message: expect.stringContaining('after 3 correction rounds'),
    });
    expect(stack.model.requests.slice(1, 4).map((request) => (request.body.tools?.length ?? 0) > 0)).toEqual([true, true, true]);
  });

  it('refuses a message past ASSISTANT_MESSAGE_MAX_CHARS with 422 naming text, and takes one at the limit (characters, not UTF-16 units)', async () => {
    const session = await newSession(stack.user);
    const tooLong = await sendMessage(stack.user, session, 'x'.repeat(41));
    expect(tooLong).toMatchObject({ status: 422, error: { code: 'VALIDATION_FAILED', details: { field: 'text', max_chars: 40 } } });
    expect(stack.model.requests).toHaveLength(0);
    expect((await stack.user.get(`/assistant/sessions/${session}`)).body).toMatchObject({ stage: 'clarification', conversations: [] });

    stack.model.script(clarifier.asks('Which language?'));
    const atLimit = await sendMessage(stack.user, session, '😀'.repeat(40));
    expect(atLimit.status).toBe(200);
    expect((await atLimit.done).map(shapeOf)).toEqual(['MESSAGE']);
    const tools = (await stack.user.get('/mcp/tools')).body.tools as {
      name: string;
      inputSchema: { properties: Record<string, unknown> };
    }[];
    expect(tools.find((tool) => tool.name === 'send_assistant_message')?.inputSchema.properties.text).toMatchObject({ maxLength: 40 });
  });
});
