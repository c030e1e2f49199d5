// The run the fault specs break: three LLM steps, each fed the previous answer, the second answer slow so
// that a fault can land while it is in flight. Each spec brings its own fault; the chain and what a
// correct recovery looks like from the model's side are the same.
import { llmStep } from './factories';
import { reply } from './model-fake';
import type { RunBody, Stack } from './stack';

/** Starts the chain and resolves once the second step is asking the model (its answer takes 1.5 s). */
export async function startFaultChain(stack: Stack): Promise<RunBody> {
  const steps = ['first', 'second', 'third'].map((name) => llmStep({ name, system_prompt: `Step ${name}: $previous_output` }));
  const workflow = await stack.createWorkflow(steps);
  stack.model.script(reply.text('one'), reply.text('two', { delayMs: 1500 }), reply.text('three'));
  const run = await stack.startRun(workflow.uuid, { text: 'go' });
  await stack.model.waitForRequests(2);
  return run;
}

/** Each step asked the model once, with the previous step's answer. */
export function expectEachStepAskedOnce(stack: Stack): void {
  expect(stack.model.requests.map((request) => request.body.messages[0].content)).toEqual([
    expect.stringMatching(/^Step first: /),
    'Step second: one',
    'Step third: two',
  ]);
}
