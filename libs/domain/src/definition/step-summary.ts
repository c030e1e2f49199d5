// What a step's generated_summary is written from: its prompt and its tools. Editing either asks for a new
// summary; a new name, a new place in the chain or any other field does not.
import { createHash } from 'node:crypto';
import type { StepDefinition } from '@app/contracts';

export interface SummarySource {
  /** sha256 of the prompt and the tools: the summary stored is the one for this hash. */
  hash: string;
  /** What the model is shown. */
  text: string;
}

export function summarySourceOf(step: StepDefinition): SummarySource | null {
  if (step.type !== 'custom_llm' && step.type !== 'custom_agent') return null;
  const tools = step.type === 'custom_agent' ? [...step.tools].sort() : [];
  const hash = createHash('sha256')
    .update(JSON.stringify([step.type, step.system_prompt, tools]))
    .digest('hex');
  const text = [
    `Step type: ${step.type === 'custom_agent' ? 'an agent with tools' : 'one model call'}`,
    tools.length ? `Tools: ${tools.join(', ')}` : null,
    `Prompt:\n${step.system_prompt}`,
  ]
    .filter(Boolean)
    .join('\n');
  return { hash, text };
}
