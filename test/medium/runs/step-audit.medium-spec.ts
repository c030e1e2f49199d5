import { randomUUID } from 'node:crypto';
import { RunRepository, type WorkflowRepository } from '@app/persistence';
import type { Rows } from '../support/rows';
import { newUserId } from '../support/fixtures';
import { modelCall, toolCall, workflowWithRun } from './run-fixtures';
import { setUpRunRepository, type RunRepositories } from './run-repository.setup';

describe(`${RunRepository.name}: a step's audit`, () => {
  let setup: Awaited<ReturnType<typeof setUpRunRepository>>;
  let runs: RunRepositories['runs'];
  let steps: RunRepositories['steps'];
  let outputs: RunRepositories['outputs'];
  let audit: RunRepositories['audit'];
  let workflows: WorkflowRepository;
  let rows: Rows;

  beforeAll(async () => {
    setup = await setUpRunRepository();
    ({ runs, steps, outputs, audit, workflows, rows } = setup);
  });
  afterAll(() => setup.close());

  it('marks a step running, counting each attempt and keeping the first start time', async () => {
    const { run } = await workflowWithRun(workflows, 1);
    await runs.create(run);
    const step = run.steps[0].uuid;

    await steps.startStep(step, { attempt: 1 });
    const first = await rows.step(step);
    await steps.startStep(step, { attempt: 2 });

    expect(await rows.step(step)).toMatchObject({ status: 'running', attempts: 2, started_at: first.started_at });
  });

  it("completes a step with its output, its tokens summed from its completed calls, readable by the run's user only", async () => {
    const { userId, run } = await workflowWithRun(workflows, 1);
    await runs.create(run);
    const step = run.steps[0].uuid;
    await steps.startStep(step, {});
    await audit.recordModelCall(modelCall(run, step, { turn: 1 }));
    await audit.recordModelCall(modelCall(run, step, { turn: 2, prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 }));
    const output = {
      uuid: randomUUID(),
      run_uuid: run.uuid,
      user_id: userId,
      step_instance_uuid: step,
      raw_data: { answer: 42 },
      summary: 'the answer',
      markdown_representation: null,
      size_bytes: 13,
    };

    await steps.completeStep(step, output);

    expect(await rows.step(step)).toMatchObject({
      status: 'completed',
      output_id: output.uuid,
      prompt_tokens: 17,
      completion_tokens: 8,
      total_tokens: 25,
      finished_at: expect.any(Date),
    });
    expect(await outputs.outputOfStep(run.uuid, run.steps[0].step_definition_uuid)).toMatchObject({
      uuid: output.uuid,
      raw_data: { answer: 42 },
    });
    expect(await outputs.findOutput(userId, output.uuid)).toMatchObject({ raw_data: { answer: 42 }, summary: 'the answer' });
    expect(await outputs.findOutput(newUserId(), output.uuid)).toBeNull();
  });

  it("starts a step with its model call's running row, neither once the step has ended, and ends the call with the output", async () => {
    const { userId, run } = await workflowWithRun(workflows, 1);
    await runs.create(run);
    const step = run.steps[0].uuid;
    const messages = [{ role: 'user', content: 'go' }];
    const output = {
      uuid: randomUUID(),
      run_uuid: run.uuid,
      user_id: userId,
      step_instance_uuid: step,
      raw_data: 'done',
      summary: 'done',
      markdown_representation: null,
      size_bytes: 4,
    };

    const attempt = await steps.startStepWithCall(
      step,
      { asked: 'go' },
      { list: messages, apart: true },
      modelCall(run, step, { status: 'running' }),
    );
    const whileRunning = await rows.modelCalls(step);
    await steps.completeStep(step, output, { call: modelCall(run, step, { attempt: attempt! }) });
    const late = await steps.startStepWithCall(step, {}, { list: [], apart: false }, modelCall(run, step, { status: 'running' }));

    expect([attempt, late]).toEqual([1, null]);
    expect(whileRunning).toEqual([expect.objectContaining({ attempt: 1, status: 'running' })]);
    expect(await rows.modelCalls(step)).toEqual([expect.objectContaining({ attempt: 1, status: 'completed', total_tokens: 15 })]);
    expect(await rows.messages(step)).toEqual(messages);
    expect(await rows.step(step)).toMatchObject({ status: 'completed', attempts: 1, output_id: output.uuid, total_tokens: 15 });
  });

  it("starts a step with the end of the step before in one transaction, or that end on its own first where the step's first call has a row", async () => {
    const { userId, run } = await workflowWithRun(workflows, 3);
    await runs.create(run);
    const [first, second, third] = run.steps.map((step) => step.uuid);
    const messages = { list: [{ role: 'user', content: 'go' }], apart: false };
    const running = (step: string) => modelCall(run, step, { status: 'running' });
    const output = { raw_data: 'done', summary: 'done', markdown_representation: null, size_bytes: 4 };
    const endOf = (step: string) => ({
      instance_uuid: step,
      output: { ...output, uuid: randomUUID(), run_uuid: run.uuid, user_id: userId, step_instance_uuid: step },
      call: modelCall(run, step, { attempt: 1 }),
    });
    await steps.startStepWithCall(first, {}, messages, running(first));
    // A worker died in the third step's first call: its row is there.
    await steps.startStepWithCall(third, {}, messages, running(third));

    const afterFirst = await steps.startStepWithCall(second, {}, messages, running(second), endOf(first));
    const afterSecond = await steps.startStepWithCall(third, {}, messages, running(third), endOf(second));

    expect([afterFirst, afterSecond]).toEqual([1, 2]);
    expect(await rows.step(first)).toMatchObject({ status: 'completed', output_id: expect.any(String), total_tokens: 15 });
    expect(await rows.step(second)).toMatchObject({ status: 'completed', output_id: expect.any(String), total_tokens: 15 });
    expect(await rows.modelCalls(third)).toEqual([
      expect.objectContaining({ attempt: 1, status: 'failed', error_message: expect.stringMatching(/^Lost/) }),
      expect.objectContaining({ attempt: 2, status: 'running' }),
    ]);
  });

  it('stores an output on its own while the step goes on (a large tool answer), read back whole', async () => {
    const { userId, run } = await workflowWithRun(workflows, 1);
    await runs.create(run);
    const step = run.steps[0].uuid;
    await steps.startStep(step, {});
    const rowsOfData = Array.from({ length: 500 }, (_, i) => ({ id: i, text: `row ${i}` }));
    const output = {
      uuid: randomUUID(),
      run_uuid: run.uuid,
      user_id: userId,
      step_instance_uuid: step,
      raw_data: rowsOfData,
      summary: '500 rows',
      markdown_representation: null,
      size_bytes: JSON.stringify(rowsOfData).length,
    };

    await outputs.storeOutput(output);

    expect(await outputs.findOutput(userId, output.uuid)).toMatchObject({ raw_data: rowsOfData, size_bytes: output.size_bytes });
    expect(await rows.step(step)).toMatchObject({ status: 'running', output_id: null });
  });

  it('fails a step that has not completed, but never one that has', async () => {
    const { run } = await workflowWithRun(workflows, 2);
    await runs.create(run);
    const [failing, done] = run.steps.map((step) => step.uuid);
    await steps.completeStep(done, null);

    await steps.failStep(failing, 'model said no');
    await steps.failStep(done, 'late failure');

    expect(await rows.step(failing)).toMatchObject({ status: 'failed', error_message: 'model said no' });
    expect(await rows.step(done)).toMatchObject({ status: 'completed', error_message: null });
  });

  it('closes a lost attempt of a model call when the next one starts, and finds the attempt that completed', async () => {
    const { run } = await workflowWithRun(workflows, 1);
    await runs.create(run);
    const step = run.steps[0].uuid;
    await audit.recordModelCall(modelCall(run, step, { attempt: 1, status: 'running' }));

    await audit.recordModelCall(modelCall(run, step, { attempt: 2, status: 'running' }));
    await audit.recordModelCall(modelCall(run, step, { attempt: 2, status: 'completed' }));

    expect(await rows.modelCalls(step)).toEqual([
      expect.objectContaining({ attempt: 1, status: 'failed', error_message: expect.stringMatching(/^Lost/) }),
      expect.objectContaining({ attempt: 2, status: 'completed', total_tokens: 15 }),
    ]);
    expect(await audit.completedModelCall(step, 1)).toMatchObject({ attempt: 2, total_tokens: 15 });
    expect(await audit.completedModelCall(step, 2)).toBeNull();
  });

  it('gives a first attempt run again after its worker died (a local activity counts from 1 again) the next attempt number', async () => {
    const { run } = await workflowWithRun(workflows, 1);
    await runs.create(run);
    const step = run.steps[0].uuid;
    expect(await audit.recordModelCall(modelCall(run, step, { attempt: 1, status: 'running' }))).toBe(1);

    const attempt = await audit.recordModelCall(modelCall(run, step, { attempt: 1, status: 'running' }));
    await audit.recordModelCall(modelCall(run, step, { attempt, status: 'completed' }));

    expect(attempt).toBe(2);
    expect(await rows.modelCalls(step)).toEqual([
      expect.objectContaining({ attempt: 1, status: 'failed', error_message: expect.stringMatching(/^Lost/) }),
      expect.objectContaining({ attempt: 2, status: 'completed', total_tokens: 15 }),
    ]);
  });

  it('closes a lost attempt of a tool call the same way, one row per attempt', async () => {
    const { run } = await workflowWithRun(workflows, 1);
    await runs.create(run);
    const step = run.steps[0].uuid;
    await audit.recordToolCall(toolCall(run, step, { attempt: 1 }));

    await audit.recordToolCall(toolCall(run, step, { attempt: 2 }));
    await audit.recordToolCall(
      toolCall(run, step, { attempt: 2, status: 'completed', output: { ok: true }, finished_at: new Date(), duration_ms: 3 }),
    );

    expect(await rows.toolCalls(step)).toEqual([
      expect.objectContaining({ attempt: 1, status: 'failed', error_message: expect.stringMatching(/^Lost/) }),
      expect.objectContaining({ attempt: 2, status: 'completed' }),
    ]);
    expect(await audit.completedToolCall(step, 'call_medium')).toMatchObject({ attempt: 2, output: { ok: true } });
  });

  it('appends a message only at the position given, however long the transcript, and reads one message alone', async () => {
    const { run } = await workflowWithRun(workflows, 1);
    await runs.create(run);
    const step = run.steps[0].uuid;
    const message = (n: number) => ({ role: 'user', content: `message ${n} é \u2028 "quoted"` });
    await steps.saveMessages(step, [message(0), message(1)]);

    const appended = await steps.appendMessage(step, 2, message(2));
    const retried = await steps.appendMessage(step, 2, message(2));
    const ahead = await steps.appendMessage(step, 4, message(4));

    expect([appended, retried, ahead]).toEqual([true, false, false]);
    expect(await steps.messagesOf(step)).toEqual([message(0), message(1), message(2)]);
    expect(await steps.messageAt(step, 1)).toEqual({ length: 3, message: message(1) });
    expect(await steps.messageAt(step, 3)).toEqual({ length: 3, message: null });
  });

  it('appends a message as a row of its own at the next position only; the run shows them after its messages, and a whole write takes them in', async () => {
    const { userId, run } = await workflowWithRun(workflows, 1);
    await runs.create(run);
    const step = run.steps[0].uuid;
    const [user, answer, tool] = [
      { role: 'user', content: 'go' },
      { role: 'assistant', content: 'a' },
      { role: 'tool', content: 't' },
    ];
    await steps.saveMessages(step, [user]);

    const placed = [
      await steps.appendMessage(step, 1, answer),
      await steps.appendMessage(step, 1, tool),
      await steps.appendMessage(step, 3, tool),
    ];
    await steps.appendMessage(step, 2, tool);

    expect(placed).toEqual([true, false, false]);
    expect(await steps.messagesOf(step)).toEqual([user, answer, tool]);
    expect([await steps.messageAt(step, 0), await steps.messageAt(step, 2), await steps.messageAt(step, 3)]).toEqual([
      { length: 3, message: user },
      { length: 3, message: tool },
      { length: 3, message: null },
    ]);
    expect((await runs.find(userId, run.uuid))?.steps[0].messages).toEqual([user, answer, tool]);
    // Written whole, the messages replace the rows (else they would follow).
    await steps.saveMessages(step, [user, answer]);
    expect(await steps.messagesOf(step)).toEqual([user, answer]);
  });

  it("ends a tool call's running attempt and appends its answer in one statement, or writes neither", async () => {
    const { run } = await workflowWithRun(workflows, 1);
    await runs.create(run);
    const step = run.steps[0].uuid;
    await steps.saveMessages(step, [{ role: 'user', content: 'go' }]);
    await audit.recordToolCall(toolCall(run, step, { attempt: 1 }));
    const end = {
      step_instance_uuid: step,
      tool_call_id: 'call_medium',
      attempt: 1,
      status: 'completed' as const,
      output: { ok: true },
      error_message: null,
      duration_ms: 3,
      finished_at: new Date(),
    };
    const message = { role: 'tool', tool_call_id: 'call_medium', content: '{"ok":true}' };

    const misplaced = await audit.recordToolAnswer(end, { instance_uuid: step, position: 2, message });
    const recorded = await audit.recordToolAnswer(end, { instance_uuid: step, position: 1, message });
    const again = await audit.recordToolAnswer(end, { instance_uuid: step, position: 2, message });

    expect([misplaced, recorded, again]).toEqual([false, true, false]);
    expect(await audit.completedToolCall(step, 'call_medium')).toMatchObject({ attempt: 1, output: { ok: true }, duration_ms: 3 });
    expect(await steps.messagesOf(step)).toEqual([{ role: 'user', content: 'go' }, message]);
  });

  it("ends a model call with its answer and starts its first tool call in one transaction; the call's row only where its id is free", async () => {
    const { run } = await workflowWithRun(workflows, 1);
    await runs.create(run);
    const step = run.steps[0].uuid;
    await steps.saveMessages(step, [{ role: 'user', content: 'go' }]);
    const answerOf = (turn: number) => ({ role: 'assistant', content: null, tool_calls: [{ id: 'call_again', turn }] });
    const endOf = (turn: number) => modelCall(run, step, { turn, status: 'completed', finished_at: new Date() });
    const running = toolCall(run, step, { tool_call_id: 'call_again', attempt: 1, status: 'running', output: null, finished_at: null });
    for (const turn of [1, 2]) await audit.recordModelCall(modelCall(run, step, { turn, status: 'running' }));

    const misplaced = await audit.recordModelAnswerStartingTool(
      endOf(1),
      { instance_uuid: step, position: 2, message: answerOf(1) },
      running,
    );
    const first = await audit.recordModelAnswerStartingTool(endOf(1), { instance_uuid: step, position: 1, message: answerOf(1) }, running);
    await audit.recordToolAnswer(
      { ...running, status: 'completed', output: { ok: true }, duration_ms: 1, finished_at: new Date() },
      { instance_uuid: step, position: 2, message: { role: 'tool', tool_call_id: 'call_again', content: '{"ok":true}' } },
    );
    // The model uses the id again in its next turn: the answer goes in, the call's row is left to the call.
    const reused = await audit.recordModelAnswerStartingTool(endOf(2), { instance_uuid: step, position: 3, message: answerOf(2) }, running);

    expect([misplaced, first, reused]).toEqual([
      { answered: false, toolStarted: false },
      { answered: true, toolStarted: true },
      { answered: true, toolStarted: false },
    ]);
    expect((await rows.modelCalls(step)).map((call) => call.status)).toEqual(['completed', 'completed']);
    expect(await rows.toolCalls(step)).toEqual([expect.objectContaining({ tool_call_id: 'call_again', attempt: 1, status: 'completed' })]);
    expect(await steps.messagesOf(step)).toEqual([
      { role: 'user', content: 'go' },
      answerOf(1),
      { role: 'tool', tool_call_id: 'call_again', content: '{"ok":true}' },
      answerOf(2),
    ]);
  });

  it("ends a tool call with its answer and starts the next model turn in one transaction; the turn's row only where it has none", async () => {
    const { run } = await workflowWithRun(workflows, 1);
    await runs.create(run);
    const step = run.steps[0].uuid;
    const asked = { role: 'assistant', content: null, tool_calls: [{ id: 'call_1' }] };
    await steps.saveMessages(step, [{ role: 'user', content: 'go' }, asked]);
    const running = (tool_call_id: string) => toolCall(run, step, { tool_call_id, status: 'running', output: null, finished_at: null });
    const endOf = (tool_call_id: string) => ({
      ...running(tool_call_id),
      status: 'completed' as const,
      output: { ok: true },
      finished_at: new Date(),
    });
    const answerOf = (tool_call_id: string) => ({ role: 'tool', tool_call_id, content: '{"ok":true}' });
    const turn = (number: number) => modelCall(run, step, { turn: number, status: 'running', finished_at: null });
    await audit.recordToolCall(running('call_1'));

    const misplaced = await audit.recordToolAnswerStartingTurn(
      endOf('call_1'),
      { instance_uuid: step, position: 3, message: answerOf('call_1') },
      turn(2),
    );
    const first = await audit.recordToolAnswerStartingTurn(
      endOf('call_1'),
      { instance_uuid: step, position: 2, message: answerOf('call_1') },
      turn(2),
    );
    // The turn has a row already (an earlier run of the activity began it): the answer goes in, the row is left as it is.
    await steps.appendMessage(step, 3, { ...asked, tool_calls: [{ id: 'call_2' }] });
    await audit.recordToolCall(running('call_2'));
    await audit.recordModelCall(turn(3));
    const taken = await audit.recordToolAnswerStartingTurn(
      endOf('call_2'),
      { instance_uuid: step, position: 4, message: answerOf('call_2') },
      turn(3),
    );

    expect([misplaced, first, taken]).toEqual([
      { answered: false, turnStarted: false },
      { answered: true, turnStarted: true },
      { answered: true, turnStarted: false },
    ]);
    expect((await rows.modelCalls(step)).map((call) => [call.turn, call.attempt, call.status])).toEqual([
      [2, 1, 'running'],
      [3, 1, 'running'],
    ]);
    expect((await rows.toolCalls(step)).map((call) => call.status)).toEqual(['completed', 'completed']);
    expect(await steps.messagesOf(step)).toHaveLength(5);
  });
});
