import type { Runner } from '../support/runner';

const ATTEMPTS = 3;

/**
 * The plain loop's runs started over when InnoDB picks one as a deadlock victim (concurrent runs writing
 * the same tables), as Temporal's activity retries do for stepwise: without it, a baseline run fails
 * now and then at concurrency 10 and above.
 */
export function withDeadlockRetry(runner: Runner): Runner {
  const retrying = (runOnce: () => Promise<void>) => async () => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await runOnce();
      } catch (error) {
        if (attempt >= ATTEMPTS || !String((error as Error).message).includes('Deadlock found')) throw error;
      }
    }
  };
  return {
    ...runner,
    prepareChain: async (steps) => retrying(await runner.prepareChain(steps)),
    prepareAgent: async (toolCalls) => retrying(await runner.prepareAgent(toolCalls)),
  };
}
