// node dist/bench/webhook-loop.js [--deliveries N] (after npm run build, with DATABASE_URL and TEMPORAL_ADDRESS
// of a migrated stack): how long a matched 0.8 MB webhook delivery holds the API's event loop (#26). The API
// runs in this process; each delivery (the hostile-tenant spec's body, a rule that matches it) is sent with a
// key of its own, one at a time, while monitorEventLoopDelay (1 ms resolution) records the loop's longest
// stall and how long it was busy in all (the in-process client's small share included); the run it starts
// stays queued (no worker), so only the API's own work is measured.
import { randomUUID } from 'node:crypto';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { startApi, testConfig } from '../test/support/api';
import { table } from './support/table';
import { runMain } from './support/main';

const chain = (depth: number): unknown => Array.from({ length: depth - 1 }).reduce<unknown>((inner) => ({ a: inner }), { v: 1 });
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const round = (ms: number) => Math.round(ms * 10) / 10;

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { deliveries: { type: 'string', default: '20' } } });
  const api = await startApi(testConfig());
  try {
    const user = await api.newUser();
    const workflow = await user.post('/workflows', {
      name: `webhook-loop-${randomUUID().slice(0, 8)}`,
      steps: [{ type: 'custom_llm', name: 'read', model: 'gpt-4o-mini', system_prompt: 'Read <<trigger_output>>' }],
      trigger: { type: 'webhook', filter_rules: { path: '$.deep.a', operator: 'exists' } },
    });
    if (workflow.status !== 201) throw new Error(`POST /workflows: ${workflow.status} ${JSON.stringify(workflow.body)}`);
    const { secret } = (await user.post(`/triggers/${workflow.body.trigger.uuid}/rotate-secret`)).body;
    const body = JSON.stringify({ deep: chain(30), a: [Array.from({ length: 400_000 }, () => 0)] });
    const send = (key: string) =>
      api.anonymous().call('POST', `/hooks/${workflow.body.trigger.uuid}`, body, { 'x-stepwise-secret': secret, 'idempotency-key': key });
    // Warm: the validators, the pool's threads, the connections.
    for (let i = 0; i < 3; i++) await send(randomUUID());

    const holds: number[] = [];
    const totals: number[] = [];
    const busy: number[] = [];
    for (let i = 0; i < Number(values.deliveries); i++) {
      const delay = monitorEventLoopDelay({ resolution: 1 });
      delay.enable();
      const start = performance.now();
      const used = performance.eventLoopUtilization();
      const answer = await send(randomUUID());
      busy.push(performance.eventLoopUtilization(used).active);
      totals.push(performance.now() - start);
      delay.disable();
      if (answer.status !== 202) throw new Error(`delivery: ${answer.status} ${JSON.stringify(answer.body)}`);
      // The histogram's max is the longest stall past the resolution timer's own period.
      holds.push(Math.max(0, delay.max / 1e6 - 1));
    }
    for (const list of [holds, totals, busy]) list.sort((a, b) => a - b);
    console.log(
      table(
        `${body.length} bytes, ${holds.length} matched deliveries one at a time`,
        ['', 'median ms', 'p90 ms', 'max ms'],
        [
          ['longest event-loop stall', round(percentile(holds, 50)), round(percentile(holds, 90)), round(holds[holds.length - 1])],
          ['event loop busy (the client too)', round(percentile(busy, 50)), round(percentile(busy, 90)), round(busy[busy.length - 1])],
          ['delivery answered in', round(percentile(totals, 50)), round(percentile(totals, 90)), round(totals[totals.length - 1])],
        ],
      ),
    );
  } finally {
    await api.close();
  }
}

runMain(main);
