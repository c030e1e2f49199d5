import { randomUUID } from 'node:crypto';
import type { StepContext } from '@app/contracts';
import { byteSize, markdownFor, parseJsonAnswer, summarizeOutput } from '@app/domain';
import type { NewOutput } from '@app/persistence';

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
    summary: summarizeOutput(raw),
    markdown_representation: markdownFor(raw),
    size_bytes: byteSize(raw),
  };
}
