// A step's generated_summary: a background workflow summarises an LLM or agent step when its prompt or
// tools change, not when it is only renamed or moved; a failure shows as the summary's status.
import { chainCandidate, clarifier, newSession, SAVED_AT_FIRST_ATTEMPT, sendMessage, shapeOf } from './support/assistant';
import { llmStep, stopChecker } from './support/factories';
import { reply } from './support/model-fake';
import { useStack, type RunBody, type Stack } from './support/stack';

describe('Step summaries', () => {
  let stack: Stack;
  useStack((started) => (stack = started), { summaries: true });

  async function summaryOf(stepUuid: string, done: (step: RunBody) => boolean): Promise<RunBody> {
    for (const deadline = Date.now() + 30_000; ;) {
      const { body } = await stack.user.get(`/steps/${stepUuid}`);
      if (done(body) || Date.now() > deadline) return body;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  it('writes a summary when the prompt changes, keeps it through a rename, and shows it on reads', async () => {
    const llm = llmStep({ name: 'summarise', system_prompt: 'Summarise the order <<trigger_output>>' });
    stack.model.script(reply.text('"Summarises the incoming order."'));
    const workflow = await stack.createWorkflow([llm, stopChecker(llm.uuid)]);
    const first = await summaryOf(llm.uuid, (step) => step.generated_summary_status !== 'pending');
    expect(first).toMatchObject({ generated_summary: 'Summarises the incoming order.', generated_summary_status: 'ready' });
    const asked = stack.model.requests[0].body as { model: string; messages: { role: string; content: string }[] };
    expect(asked.model).toBe(stack.api.config.summaries.model);
    expect(asked.messages[1].content).toContain('Summarise the order <<trigger_output>>');

    // A new name: nothing to ask, the summary stays ready.
    expect((await stack.user.patch(`/steps/${llm.uuid}`, { name: 'renamed' })).status).toBe(200);
    expect((await stack.user.get(`/steps/${llm.uuid}`)).body).toMatchObject({ name: 'renamed', generated_summary_status: 'ready' });

    // A new prompt: pending at once, then the new summary.
    stack.model.script(reply.text('Translates the order into French.'));
    await stack.user.patch(`/steps/${llm.uuid}`, { system_prompt: 'Translate <<trigger_output>> into French' });
    expect((await stack.user.get(`/steps/${llm.uuid}`)).body).toMatchObject({
      generated_summary_status: 'pending',
      generated_summary: 'Summarises the incoming order.',
    });
    await summaryOf(llm.uuid, (step) => step.generated_summary_status === 'ready');
    const details = (await stack.user.get(`/workflows/${workflow.uuid}/details`)).body;
    expect(details.steps[0]).toMatchObject({ generated_summary: 'Translates the order into French.', generated_summary_status: 'ready' });
    expect(details.steps[1]).not.toHaveProperty('generated_summary');
    expect(stack.model.requests).toHaveLength(2);
  });

  it("asks for them when the assistant saves too, through the worker's own Temporal client", async () => {
    const candidate = chainCandidate();
    const summary = 'Summarises the text, then translates the summary.';
    stack.model.script(clarifier.ready(), reply.json(candidate), reply.text(summary), reply.text(summary));
    const events = await (await sendMessage(stack.user, await newSession(stack.user), 'Summarise what I send, then translate it')).done;
    expect(events.map(shapeOf)).toEqual(SAVED_AT_FIRST_ATTEMPT);
    for (const step of candidate.steps) {
      expect(await summaryOf(step.uuid as string, (body) => body.generated_summary_status !== 'pending')).toMatchObject({
        generated_summary: summary,
        generated_summary_status: 'ready',
      });
    }
  });

  it('marks the summary failed when the model refuses, and a save asks again', async () => {
    const llm = llmStep({ name: 'refused' });
    stack.model.script(reply.error(400, { message: 'model fake: no summaries today' }));
    await stack.createWorkflow([llm]);
    const failed = await summaryOf(llm.uuid, (step) => step.generated_summary_status !== 'pending');
    expect(failed).toMatchObject({ generated_summary: null, generated_summary_status: 'failed' });

    stack.model.script(reply.text('Summarises the input.'));
    await stack.user.patch(`/steps/${llm.uuid}`, { name: 'again' });
    expect(await summaryOf(llm.uuid, (step) => step.generated_summary_status === 'ready')).toMatchObject({
      generated_summary: 'Summarises the input.',
    });
  });
});
