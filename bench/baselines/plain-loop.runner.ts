// Baseline (a): the same steps in a plain in-process loop: the same model calls over HTTP and the same
// audit rows in MySQL, with no Temporal.
import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import type { ChatMessage, StepContext, ToolSpec } from '@app/contracts';
import { type OneTripPool, TypeormCallAuditRepository, TypeormRunRepository, TypeormStepRepository } from '@app/persistence';
import { OpenAiModelClient, type ModelResponse } from '@app/providers';
import { runEnding } from '@app/runs';
import { newOutput } from '../../apps/worker/src/execution/step-output';
import { BENCH_MODEL, BENCH_TOOL, type Runner } from '../support/runner';
import { withDeadlockRetry } from './deadlock-retry';

const AGENT_TOOLS: ToolSpec[] = [{ name: BENCH_TOOL, description: 'look up', parameters: { type: 'object' } }];

export function plainLoopRunner(dataSource: DataSource, oneTrip: OneTripPool, modelBaseUrl: string, toolUrl: string): Runner {
  const runs = new TypeormRunRepository(dataSource, oneTrip);
  const stepRows = new TypeormStepRepository(dataSource, oneTrip);
  const calls = new TypeormCallAuditRepository(dataSource, oneTrip);
  const model = new OpenAiModelClient({ baseUrl: modelBaseUrl, apiKey: 'bench', timeoutMs: 60_000 });
  const userId = `bench-plain-${randomUUID()}`;

  async function newRun(steps: number, type: string): Promise<{ runUuid: string; instances: string[] }> {
    const runUuid = randomUUID();
    const instances = Array.from({ length: steps }, () => randomUUID());
    await runs.create({
      uuid: runUuid,
      user_id: userId,
      workflow_uuid: randomUUID(),
      workflow_name: 'plain',
      definition: { steps },
      temporal_workflow_id: 'none',
      schedule_id: null,
      trigger_output: { uuid: randomUUID(), raw_data: { bench: true }, summary: 'bench', markdown_representation: null, size_bytes: 14 },
      steps: instances.map((uuid, i) => ({ uuid, step_definition_uuid: randomUUID(), step_name: `s${i}`, step_type: type })),
    });
    return { runUuid, instances };
  }

  async function modelTurn(context: StepContext, turn: number, messages: ChatMessage[], tools?: ToolSpec[]): Promise<ModelResponse> {
    const started_at = new Date();
    const response = await model.complete({ model: BENCH_MODEL, messages, tools });
    await calls.recordModelCall({
      run_uuid: context.run_uuid,
      step_instance_uuid: context.instance_uuid,
      turn,
      attempt: 1,
      provider: model.provider,
      model: BENCH_MODEL,
      request_hash: null,
      status: 'completed',
      error_message: null,
      request: { messages },
      response: { message: response.message },
      ...response.usage,
      cached_tokens: response.usage.cached_tokens ?? 0,
      cost: null,
      cached_from: null,
      duration_ms: response.duration_ms,
      started_at,
      finished_at: new Date(),
    });
    return response;
  }

  const context = (runUuid: string, instance: string): StepContext => ({
    run_uuid: runUuid,
    user_id: userId,
    instance_uuid: instance,
    previous_step_uuid: null,
  });

  return withDeadlockRetry({
    name: 'plain loop',
    prepareChain: async (steps) => async () => {
      const { runUuid, instances } = await newRun(steps, 'custom_llm');
      for (const instance of instances) {
        const messages: ChatMessage[] = [
          { role: 'system', content: 'Summarise' },
          { role: 'user', content: 'Execute your task.' },
        ];
        await stepRows.startStep(instance, { system_prompt: 'Summarise' });
        const response = await modelTurn(context(runUuid, instance), 1, messages);
        await stepRows.completeStep(instance, newOutput(context(runUuid, instance), response.message.content), {
          messages: [...messages, response.message],
        });
      }
      await runs.end(runEnding(runUuid, { status: 'completed', error_message: null }));
    },
    prepareAgent: async () => async () => {
      const {
        runUuid,
        instances: [instance],
      } = await newRun(1, 'custom_agent');
      const ctx = context(runUuid, instance);
      await stepRows.startStep(instance, { system_prompt: 'Use your tools' });
      let messages: ChatMessage[] = [
        { role: 'system', content: 'Use your tools' },
        { role: 'user', content: 'Execute your task.' },
      ];
      for (let turn = 1; ; turn++) {
        const { message } = await modelTurn(ctx, turn, messages, AGENT_TOOLS);
        messages = [...messages, message];
        await stepRows.saveMessages(instance, messages);
        if (!message.tool_calls?.length) break;
        for (const call of message.tool_calls) {
          const started_at = new Date();
          const output = await (
            await fetch(toolUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: call.arguments })
          ).json();
          await calls.recordToolCall({
            run_uuid: runUuid,
            step_instance_uuid: instance,
            tool_call_id: call.id,
            attempt: 1,
            tool_name: BENCH_TOOL,
            input: JSON.parse(call.arguments),
            output,
            status: 'completed',
            error_message: null,
            duration_ms: Date.now() - started_at.getTime(),
            started_at,
            finished_at: new Date(),
          });
          messages = [...messages, { role: 'tool', tool_call_id: call.id, content: JSON.stringify(output) }];
        }
      }
      await stepRows.completeStep(instance, newOutput(ctx, messages.at(-1)?.content ?? ''), { messages });
      await runs.end(runEnding(runUuid, { status: 'completed', error_message: null }));
    },
    close: async () => {},
  });
}
