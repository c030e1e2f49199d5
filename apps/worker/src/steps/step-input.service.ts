// What a model step sees: its system prompt with placeholders resolved, and its user message. LLM steps
// get the full data; agents get compact {output_id, summary} references and fetch data with get_output.
import { Injectable } from '@nestjs/common';
import type { StepContext } from '@app/contracts';
import { findPlaceholders, formatForPrompt, getPath, pickFromHistory, renderTemplate, type PlaceholderRef } from '@app/domain';
import { RunRepository, type OutputRecord } from '@app/persistence';

export type DataMode = 'full' | 'reference';

export interface StepInput {
  system: string;
  user: string;
  /** What the audit keeps as the step's input_data. */
  record: { system_prompt: string; user_message: string; references: { placeholder: string; output_id: string | null }[] };
}

const TASK_MESSAGE = 'Execute your task.';

@Injectable()
export class StepInputService {
  constructor(private readonly runs: RunRepository) {}

  async build(context: StepContext, systemPrompt: string, mode: DataMode): Promise<StepInput> {
    const refs = findPlaceholders(systemPrompt);
    const outputs = new Map<string, OutputRecord | null>();
    for (const ref of refs) outputs.set(ref.raw, await this.outputFor(context, ref));

    const render = (ref: PlaceholderRef) => this.present(outputs.get(ref.raw) ?? null, ref, mode);
    const system = renderTemplate(systemPrompt, render);
    // Seed 001: with no placeholder at all, the previous output (the trigger data first) is the user message.
    const previous = refs.length ? null : await this.outputFor(context, { raw: '$previous_output', kind: 'previous', path: [] });
    const user = previous ? `Previous output:\n${this.present(previous, { raw: '', kind: 'previous', path: [] }, mode)}` : TASK_MESSAGE;
    return {
      system,
      user,
      record: {
        system_prompt: system,
        user_message: user,
        references: [...outputs.entries(), ...(previous ? [['$previous_output', previous] as const] : [])].map(([placeholder, output]) => ({
          placeholder,
          output_id: output?.uuid ?? null,
        })),
      },
    };
  }

  private async outputFor(context: StepContext, ref: PlaceholderRef): Promise<OutputRecord | null> {
    if (ref.kind === 'step') {
      // A chain runs each step once: its history is its one output.
      const output = await this.runs.outputOfStep(context.run_uuid, ref.step_uuid!);
      return pickFromHistory(output ? [output] : [], ref.index) ?? null;
    }
    if (ref.kind === 'previous' && context.previous_step_uuid) return this.runs.outputOfStep(context.run_uuid, context.previous_step_uuid);
    return this.runs.triggerOutput(context.run_uuid);
  }

  private present(output: OutputRecord | null, ref: PlaceholderRef, mode: DataMode): string {
    if (!output) return ref.default ?? 'null';
    if (ref.path.length) {
      const value = getPath(output.raw_data, ref.path);
      return value === undefined ? (ref.default ?? 'null') : formatForPrompt(value);
    }
    if (mode === 'reference') return JSON.stringify({ output_id: output.uuid, summary: output.summary });
    return output.markdown_representation ?? formatForPrompt(output.raw_data);
  }
}
