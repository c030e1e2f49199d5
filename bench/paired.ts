// npm run bench:paired -- --against DIR [--steps 1,20 --runs 40]: this build against another checkout's build (DIR,
// built: its dist/bench/support/system.js), each with its own API and worker on the same Temporal server and MySQL,
// their runs alternated one by one (support/alternate.ts): the median of the paired differences is the change's own.
import 'reflect-metadata';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { ModelFake, reply } from '../test/support/model-fake';
import { alternate, pairedFigures } from './support/alternate';
import { runMain } from './support/main';
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
      const figures = pairedFigures(await alternate([before, after], Number(values.runs), WARMUP));
      rows.push([steps, values.runs!, ...figures.p50, figures.difference_p50, `${figures.difference_p25} / ${figures.difference_p75}`]);
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
