// npm run bench:paired -- --against DIR [--steps 1,20 --agents 10 --runs 40]: this build against another checkout's build
// (DIR, built: its dist/bench/support/system.js), each with its own API and worker on the same Temporal server and
// MySQL, their runs alternated one by one (support/alternate.ts): the median of the paired differences is the
// change's own. --agents: an agent making that many tool calls too (the bench's HTTP tool), after the chains.
import 'reflect-metadata';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { ModelFake } from '../test/support/model-fake';
import { ToolServer } from '../test/support/tool-server';
import { roundReplies, stepwiseAgent } from './scenarios/agent-rounds';
import { alternate, pairedFigures } from './support/alternate';
import { runMain } from './support/main';
import { BENCH_TOOL } from './support/runner';
import { stepwiseRunner } from './support/stepwise.runner';
import { startSystem, type System } from './support/system';
import { table } from './support/table';

const WARMUP = 5;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      against: { type: 'string' },
      steps: { type: 'string', default: '1,20' },
      agents: { type: 'string', default: '' },
      runs: { type: 'string', default: '40' },
    },
  });
  if (!values.against) throw new Error('--against DIR: a built checkout to compare this build with');
  const other = (await import(path.resolve(values.against, 'dist/bench/support/system.js'))) as { startSystem: typeof startSystem };
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const model = await ModelFake.start();
  // A chain's steps ask with no tools (a text answer); an agent's turns ask for the calls its prompt names.
  model.respondWith(roundReplies);
  const tools = await ToolServer.start({ [BENCH_TOOL]: (args) => ({ ok: true, args }) });
  const toolUrl = tools.url(BENCH_TOOL);
  const systems: System[] = [await other.startSystem(model.baseUrl), await startSystem(model.baseUrl)];
  const rows: (string | number)[][] = [];
  const measure = async (work: string, prepare: (system: System) => Promise<() => Promise<void>>) => {
    const [before, after] = await Promise.all(systems.map(prepare));
    const figures = pairedFigures(await alternate([before, after], Number(values.runs), WARMUP));
    rows.push([work, values.runs!, ...figures.p50, figures.difference_p50, `${figures.difference_p25} / ${figures.difference_p75}`]);
  };
  const listed = (option: string | undefined) => (option ? option.split(',').map(Number) : []);
  try {
    for (const steps of listed(values.steps))
      await measure(`${steps}-step chain`, (system) => stepwiseRunner(system, '').prepareChain(steps));
    for (const calls of listed(values.agents))
      await measure(`agent, ${calls} tool calls`, (system) => stepwiseAgent(system, toolUrl).prepareAgent(calls));
  } finally {
    await Promise.all(systems.map((system) => system.stop()));
    await Promise.all([model.close(), tools.close()]);
  }
  console.log(
    table(
      `${values.against} against this build (ms)`,
      ['run', 'pairs', 'other p50', 'this p50', 'this − other p50 of pairs', 'p25 / p75'],
      rows,
    ),
  );
}

runMain(main);
