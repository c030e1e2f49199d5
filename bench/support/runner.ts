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
