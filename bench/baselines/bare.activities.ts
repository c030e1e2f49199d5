import type { ModelClient } from '@app/providers';
import { BENCH_MODEL } from '../support/runner';

export interface BareActivities {
  callModel(turn: number): Promise<string | null>;
  callTool(call: number): Promise<unknown>;
}

export function createBareActivities(model: ModelClient, toolUrl: string): BareActivities {
  return {
    async callModel(turn) {
      // Plain text turns: the workflow itself decides how many tool rounds to make.
      const response = await model.complete({ model: BENCH_MODEL, messages: [{ role: 'user', content: `turn ${turn}` }] });
      return response.message.content;
    },
    async callTool(call) {
      const response = await fetch(toolUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ call }),
      });
      return response.json();
    },
  };
}
