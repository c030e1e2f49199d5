// npm run bench:probe [-- --only chain,agent,start --runs N]: one figure family in about a minute, for
// working on a cost (issue #17). The full comparison, and the figures BENCHMARKS.md quotes, come from
// `npm run bench`; this prints the same ratios for the part asked for, against baselines measured here.
import 'reflect-metadata';
import { parseArgs } from 'node:util';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { ModelFake, reply, type RecordedRequest } from '../test/support/model-fake';
import { ToolServer } from '../test/support/tool-server';
import { bareTemporalRunner } from './baselines/bare-temporal.runner';
import { floorRunners } from './baselines/floor.runner';
import { AGENT_TOOL_CALLS } from './scenarios/agent';
import { measureAgentRounds } from './scenarios/agent-rounds';
import { measureOverhead, measureSequential } from './scenarios/overhead';
import { measureStartRate } from './scenarios/start-rate';
import { BENCH_TOOL } from './support/runner';
import { round } from './support/stats';
import { startSystem } from './support/system';
import { table } from './support/table';

const SIZES = [1, 5, 20];

const replies = (request: RecordedRequest) => {
  if (!request.body.tools?.length) return reply.text('ok');
  const done = request.body.messages.filter((message) => message.role === 'tool').length;
  return done < AGENT_TOOL_CALLS ? reply.toolCalls([{ name: BENCH_TOOL, arguments: { call: done } }]) : reply.text('done');
};

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { only: { type: 'string', default: 'chain,agent,start' }, runs: { type: 'string', default: '10' } } });
  const only = new Set(values.only!.split(','));
  const runs = Number(values.runs);
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const model = await ModelFake.start();
  model.respondWith(replies);
  const tools = await ToolServer.start({ [BENCH_TOOL]: (args) => ({ ok: true, args }) });
  const system = await startSystem(model.baseUrl);
  const bare = await bareTemporalRunner(system.config, model.baseUrl, tools.url(BENCH_TOOL));
  const floor = await floorRunners(system.config, model.baseUrl, tools.url(BENCH_TOOL));
  try {
    if (only.has('chain')) {
      const ours = await measureOverhead(system, model, SIZES, runs, 3);
      const [local, ordinary] = [await measureSequential(floor.local, SIZES, runs, 3), await measureSequential(bare, SIZES, runs, 3)];
      console.log(table('chain (p50 ms)', ['steps', 'run', 'per-step overhead', 'bare-local run', 'bare-local per step', 'vs bare-local', 'bare run', 'vs bare'],
        ours.map((o, i) => [o.steps, o.run_ms.p50, round(o.per_step_overhead_ms.p50), local[i].run_ms.p50, round(local[i].run_ms.p50 / o.steps),
          round(o.per_step_overhead_ms.p50 / (local[i].run_ms.p50 / o.steps), 2), ordinary[i].run_ms.p50, round(o.per_step_overhead_ms.p50 / (ordinary[i].run_ms.p50 / o.steps), 2)])));
    }
    if (only.has('agent')) {
      const agent = await measureAgentRounds({ system, toolUrl: tools.url(BENCH_TOOL), model, replies, bareAgent: floor.agent, runs: Math.max(1, Math.round(runs / 5)) });
      console.log(table('agent rounds (per round ms)', ['rounds', 'stepwise', 'bare agent', 'vs bare agent'], agent.map((a) => [a.rounds, a.stepwise.per_tool_call_round_ms, a.bare_agent.per_tool_call_round_ms, a.vs_bare_agent])));
    }
    if (only.has('start')) {
      const start = await measureStartRate(system, 4000);
      console.log(table('POST /runs alone', ['requests/s', 'errors', 'p50', 'p99', 'bare starts/s', 'vs bare'], [[round(start.requests_per_second), start.errors, start.latency_ms.p50, start.latency_ms.p99, round(start.bare_starts_per_second), start.vs_bare]]));
      for (const [reason, count] of Object.entries(start.failures)) console.log(`   ${count} failed with ${reason}`);
    }
  } finally {
    await Promise.all([bare.close(), floor.close()]);
    await system.stop();
    await Promise.all([model.close(), tools.close()]);
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
