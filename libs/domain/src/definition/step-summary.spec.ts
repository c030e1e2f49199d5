import type { CustomAgentStep, CustomLlmStep } from '@app/contracts';
import { summarySourceOf } from './step-summary';

const llmOf = (fields: Partial<CustomLlmStep>) =>
  ({ uuid: 'u1', type: 'custom_llm', name: 'llm', model: 'm', system_prompt: 'p', ...fields }) as CustomLlmStep;
const agentOf = (fields: Partial<CustomAgentStep>) =>
  ({ uuid: 'u2', type: 'custom_agent', name: 'agent', model: 'm', system_prompt: 'p', tools: [], ...fields }) as CustomAgentStep;

describe(summarySourceOf.name, () => {
  it('changes with the prompt or the tools, not with the name, the model or the order of the tools', () => {
    const base = summarySourceOf(agentOf({ system_prompt: 'Find prices', tools: ['a', 'b'] }))!;
    expect(summarySourceOf(agentOf({ system_prompt: 'Find prices', tools: ['b', 'a'], name: 'renamed', model: 'other' }))!.hash).toBe(
      base.hash,
    );
    expect(summarySourceOf(agentOf({ system_prompt: 'Find stock', tools: ['a', 'b'] }))!.hash).not.toBe(base.hash);
    expect(summarySourceOf(agentOf({ system_prompt: 'Find prices', tools: ['a'] }))!.hash).not.toBe(base.hash);
    expect(base.text).toBe('Step type: an agent with tools\nTools: a, b\nPrompt:\nFind prices');
  });

  it('summarises LLM and agent steps only', () => {
    expect(summarySourceOf(llmOf({ system_prompt: 'Summarise <<trigger_output>>' }))?.text).toBe(
      'Step type: one model call\nPrompt:\nSummarise <<trigger_output>>',
    );
    expect(summarySourceOf({ uuid: 'u', type: 'human_input', name: 'h', prompt: 'ok?' } as never)).toBeNull();
  });
});
