import { randomUUID } from 'node:crypto';
import type { StepContext } from '@app/contracts';
import { byteSize, markdownFor, parseJsonAnswer, summarizeOutput } from '@app/domain';
import type { NewOutput } from '@app/persistence';
import { StepError } from './step-error';

/** A model's final text as step data: JSON when it holds JSON (required when the step has an output_schema). */
export function answerData(content: string | null, stepName: string, requireJson: boolean): unknown {
  const json = parseJsonAnswer(content);
  if (json !== undefined) return json;
  if (requireJson) throw new StepError('InvalidStructuredOutput', `step "${stepName}" has an output_schema but the model did not answer JSON`);
  return content ?? '';
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
