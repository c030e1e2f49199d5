// Scenario 8 (issue #29): a for_each over 100 items whose model answers in 200 ms, run one item at a time and
// 10 and 50 at once, against the ideal (items × model time ÷ concurrency): what running items side by side
// buys, and what each item still costs in orchestration.
import { randomUUID } from 'node:crypto';
import { createConnection } from 'mysql2/promise';
import { BENCH_MODEL } from '../support/runner';
import { distribution, round, type Distribution } from '../support/stats';
import type { System } from '../support/system';

export interface FanOutResult {
  concurrency: number;
  run_ms: Distribution;
  ideal_ms: number;
  /** The run's p50 over the ideal: 1.2 means 20% above it. */
  vs_ideal: number;
}

/** `delay` is the bench's model delay, set to `modelMs` while this runs. */
export async function measureFanOut(
  system: System,
  delay: { ms: number },
  { items, modelMs, widths, runs }: { items: number; modelMs: number; widths: number[]; runs: number },
): Promise<FanOutResult[]> {
  delay.ms = modelMs;
  try {
    const results: FanOutResult[] = [];
    for (const width of widths) {
      const workflow = await system.createWorkflow([fanOutStep(items, width)]);
      const samples: number[] = [];
      // One warm-up run first: the worker's first run of a workflow pays for caches the others find warm.
      for (let i = 0; i < runs + 1; i++) {
        const started = Date.now();
        const runUuid = await startWithItems(system, workflow, items);
        const result = await system.waitForRun(runUuid);
        if (result.status !== 'completed') throw new Error(`fan-out run ended ${result.status}`);
        if (i > 0) samples.push(Date.now() - started);
      }
      const run = distribution(samples);
      const ideal = Math.ceil(items / width) * modelMs;
      results.push({ concurrency: width, run_ms: run, ideal_ms: ideal, vs_ideal: round(run.p50 / ideal, 2) });
    }
    return results;
  } finally {
    delay.ms = 0;
  }
}

export interface FanOutPairResult {
  runs: number;
  completed: number;
  wall_ms: number;
  /** The most connections the database had from the system's API and worker, sampled every 50 ms. */
  peak_connections: number;
  pool_size: number;
}

/**
 * `runs` for_each runs over `items` items each at max_concurrency `width` started at once (what used up the
 * server's connections before DATABASE_POOL_SIZE bounded each process in all): do they all complete, and how
 * many connections did the database see at most.
 */
export async function measureFanOutTogether(
  system: System,
  delay: { ms: number },
  { items, modelMs, width, runs }: { items: number; modelMs: number; width: number; runs: number },
): Promise<FanOutPairResult> {
  delay.ms = modelMs;
  const admin = await createConnection({ uri: system.config.databaseUrl });
  const database = new URL(system.config.databaseUrl).pathname.slice(1);
  let peak = 0;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const [rows] = await admin.query('SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE DB = ? AND ID <> CONNECTION_ID()', [
        database,
      ]);
      peak = Math.max(peak, Number((rows as { n: number }[])[0].n));
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  try {
    const workflow = await system.createWorkflow([fanOutStep(items, width)]);
    const started = Date.now();
    const uuids = await Promise.all(Array.from({ length: runs }, () => startWithItems(system, workflow, items)));
    const ends = await Promise.all(uuids.map((uuid) => system.waitForRun(uuid)));
    const wall = Date.now() - started;
    return {
      runs,
      completed: ends.filter((end) => end.status === 'completed').length,
      wall_ms: wall,
      peak_connections: peak,
      pool_size: system.config.databasePoolSize,
    };
  } finally {
    sampling = false;
    await sampler;
    await admin.end();
    delay.ms = 0;
  }
}

async function startWithItems(system: System, workflowUuid: string, items: number): Promise<string> {
  const response = await fetch(`${system.apiUrl}/workflows/${workflowUuid}/runs`, {
    method: 'POST',
    headers: { authorization: `Bearer ${system.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ trigger_output: { items: Array.from({ length: items }, (_, i) => `item ${i}`) } }),
  });
  const body = (await response.json()) as { uuid?: string };
  if (!response.ok || !body.uuid) throw new Error(`POST /runs answered ${response.status}: ${JSON.stringify(body)}`);
  return body.uuid;
}

/** One LLM step over the trigger's `items`, `width` of them at once. */
function fanOutStep(items: number, width: number) {
  return {
    uuid: randomUUID(),
    type: 'custom_llm',
    name: 'each',
    model: BENCH_MODEL,
    system_prompt: 'Handle <<item>>',
    loop: { type: 'for_each', input_path: '<<trigger_output.items>>', max_items: items, max_concurrency: width },
  };
}
