// node dist/bench/replay.js [--runs N --delay MS] (after npm run build, with the bench's environment): a
// recorded 20-step run replayed against its unchanged workflow, fully from the record, beside a fresh run of
// the same workflow: wall time from POST to the run's result, and the provider requests each made (#30).
import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { ModelFake, reply } from '../test/support/model-fake';
import { distribution } from './support/stats';
import { startSystem } from './support/system';
import { table } from './support/table';
import { runMain } from './support/main';

const STEPS = 20;

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { runs: { type: 'string', default: '5' }, delay: { type: 'string', default: '0,300' } } });
  const runs = Number(values.runs);
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const model = await ModelFake.start();
  const delay = { ms: 0 };
  model.respondWith(() => reply.text('ok', { delayMs: delay.ms || undefined }));
  const system = await startSystem(model.baseUrl);
  const post = async (route: string, body: unknown) => {
    const response = await fetch(`${system.apiUrl}${route}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${system.key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`POST ${route}: ${response.status} ${await response.text()}`);
    return (await response.json()) as { uuid: string };
  };
  const timed = async (start: () => Promise<string>) => {
    const before = model.requests.length;
    const started = Date.now();
    const result = await system.waitForRun(await start());
    if (result.status !== 'completed') throw new Error(`run ended ${result.status}`);
    return { ms: Date.now() - started, requests: model.requests.length - before };
  };
  const rows: (string | number)[][] = [];
  try {
    const workflowUuid = await system.createWorkflow(
      Array.from({ length: STEPS }, (_, i) => ({
        uuid: randomUUID(),
        type: 'custom_llm',
        name: `s${i}`,
        model: 'bench-model',
        system_prompt: `Step ${i + 1}: summarise <<trigger_output>>`,
      })),
    );
    for (const ms of values.delay!.split(',').map(Number)) {
      delay.ms = ms;
      const fresh: { ms: number; requests: number }[] = [];
      const replayed: { ms: number; requests: number }[] = [];
      for (let i = 0; i < runs + 1; i++) {
        let recorded = '';
        const run = await timed(async () => (recorded = await system.startRun(workflowUuid)));
        const replay = await timed(async () => (await post(`/runs/${recorded}/replay`, {})).uuid);
        if (i === 0) continue; // warm-up
        fresh.push(run);
        replayed.push(replay);
      }
      const p50 = (samples: { ms: number }[]) => distribution(samples.map((sample) => sample.ms)).p50;
      rows.push(['fresh run', ms, p50(fresh), distribution(fresh.map((s) => s.ms)).p95, fresh[0].requests]);
      rows.push(['replay from the record', ms, p50(replayed), distribution(replayed.map((s) => s.ms)).p95, replayed[0].requests]);
    }
    console.log(
      table(`${STEPS}-step run, ${runs} runs each (ms)`, ['run', 'model delay ms', 'wall p50', 'wall p95', 'provider requests'], rows),
    );
  } finally {
    await system.stop();
    await model.close();
  }
}

runMain(main);
