/** One way of running the same work: stepwise itself, or a baseline. Scenarios measure any of them. */
export interface Runner {
  name: string;
  /** Prepares a chain of `steps` LLM calls (or an agent making `toolCalls` calls) and returns how to run it once. */
  prepareChain(steps: number): Promise<() => Promise<void>>;
  prepareAgent(toolCalls: number): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

export const BENCH_MODEL = 'bench-model';
export const BENCH_TOOL = 'bench_lookup';

/** An agent's system prompt names how many tool calls the model fake should ask for before it answers. */
export const agentPrompt = (toolCalls: number): string => `Use your tools ${toolCalls} times`;

/** The tool calls an agent's conversation asks for (see agentPrompt); undefined when it names none. */
export function toolCallsAsked(messages: { role: string; content?: unknown }[]): number | undefined {
  const system = messages.find((message) => message.role === 'system');
  const match = typeof system?.content === 'string' ? /Use your tools (\d+) times/.exec(system.content) : null;
  return match ? Number(match[1]) : undefined;
}
