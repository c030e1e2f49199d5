// npm run bench:paired -- --against DIR [--steps 1,20 --runs 40]: this build against another checkout's build (DIR,
// built: its dist/bench/support/system.js), each with its own API and worker on the same Temporal server and MySQL,
// their runs alternated one by one. The median of the paired differences is the change's own cost or gain on a
// machine whose speed drifts between minutes (alternated whole probe runs differ by ±15% here).
import 'reflect-metadata';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { ModelFake, reply } from '../test/support/model-fake';
import { runMain } from './support/main';
import { median, percentile, round } from './support/stats';
import { stepwiseRunner } from './support/stepwise.runner';
import { startSystem, type System } from './support/system';
import { table } from './support/table';

const WARMUP = 5;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { against: { type: 'string' }, steps: { type: 'string', default: '1,20' }, runs: { type: 'string', default: '40' } },
  });
  if (!values.against) throw new Error('--against DIR: a built checkout to compare this build with');
  const other = (await import(path.resolve(values.against, 'dist/bench/support/system.js'))) as { startSystem: typeof startSystem };
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const model = await ModelFake.start();
  model.respondWith(() => reply.text('ok'));
  const systems: System[] = [await other.startSystem(model.baseUrl), await startSystem(model.baseUrl)];
  const rows: (string | number)[][] = [];
  try {
    for (const steps of values.steps!.split(',').map(Number)) {
      const [before, after] = await Promise.all(systems.map((system) => stepwiseRunner(system, '').prepareChain(steps)));
      for (let i = 0; i < WARMUP; i++) for (const run of [before, after]) await run();
      const times: [number[], number[]] = [[], []];
      const differences: number[] = [];
      for (let i = 0; i < Number(values.runs); i++) {
        // Each pair in the other order from the one before: neither build always runs second.
        const took = [0, 0];
        for (const side of i % 2 ? [0, 1] : [1, 0]) {
          const started = performance.now();
          await [before, after][side]();
          took[side] = performance.now() - started;
          times[side].push(took[side]);
        }
        differences.push(took[1] - took[0]);
      }
      rows.push([
        steps,
        differences.length,
        round(median(times[0])),
        round(median(times[1])),
        round(median(differences)),
        `${round(percentile(differences, 25))} / ${round(percentile(differences, 75))}`,
      ]);
    }
  } finally {
    await Promise.all(systems.map((system) => system.stop()));
    await model.close();
  }
  console.log(
    table(
      `A chain, ${values.against} against this build (ms)`,
      ['steps', 'pairs', 'other p50', 'this p50', 'this − other p50 of pairs', 'p25 / p75'],
      rows,
    ),
  );
}

runMain(main);
