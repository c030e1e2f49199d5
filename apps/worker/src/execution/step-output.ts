import { createHash, randomUUID } from 'node:crypto';
import type { OutputRef, StepContext } from '@app/contracts';
import { byteSize, markdownFor, parseJsonAnswer, outputPreview } from '@app/domain';
import type { NewOutput, OutputRecord, OutputRepository, StepRepository } from '@app/persistence';

/** A model's final text as step data when the step has no output_schema: the JSON it holds, else the text. */
export function answerData(content: string | null): unknown {
  return parseJsonAnswer(content) ?? content ?? '';
}

export function newOutput(context: StepContext, raw: unknown): NewOutput {
  return {
    uuid: randomUUID(),
    run_uuid: context.run_uuid,
    user_id: context.user_id,
    step_instance_uuid: context.instance_uuid,
    raw_data: raw,
    summary: outputPreview(raw),
    markdown_representation: markdownFor(raw),
    size_bytes: byteSize(raw),
  };
}

/**
 * An output just stored (or found stored) with its data: the activity checks a repeat_until predicate or a
 * router's choice on the data it has instead of reading it back, and only `ref` travels through Temporal.
 */
export interface StoredOutput {
  ref: OutputRef;
  data: unknown;
}

export const storedOf = (output: Pick<OutputRecord, 'uuid' | 'summary' | 'size_bytes' | 'raw_data'>): StoredOutput => ({
  ref: refOf(output),
  data: output.raw_data,
});

/** What travels through Temporal for an output. */
export const refOf = (output: Pick<OutputRecord, 'uuid' | 'summary' | 'size_bytes' | 'raw_data'>): OutputRef => ({
  output_id: output.uuid,
  summary: output.summary,
  size_bytes: output.size_bytes,
  digest: outputDigest(output.raw_data),
});

/** Equal data, equal digest (the graph walk's repeated-input guard compares them); 16 bytes of sha-256 is plenty. */
export const outputDigest = (raw: unknown): string =>
  createHash('sha256')
    .update(JSON.stringify(raw ?? null))
    .digest('base64url')
    .slice(0, 22);

/**
 * The output of an earlier attempt that completed the step but whose result never reached Temporal (the
 * server was down, or the worker died right after the commit): the retry returns it instead of running
 * the step, and calling the model, a second time. Null when the step has not completed.
 */
export async function completedOutput(steps: StepRepository, outputs: OutputRepository, context: StepContext): Promise<OutputRef | null> {
  return (await completedStored(steps, outputs, context))?.ref ?? null;
}

/** completedOutput, with the output's data. */
export async function completedStored(
  steps: StepRepository,
  outputs: OutputRepository,
  context: StepContext,
): Promise<StoredOutput | null> {
  const instance = await steps.instance(context.instance_uuid);
  if (instance?.status !== 'completed' || !instance.output_id) return null;
  const output = await outputs.findOutput(context.user_id, instance.output_id);
  return output && storedOf(output);
}
