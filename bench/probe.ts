// npm run bench:probe [-- --only chain,agent,start,burst,fanout,fanout-together,slow --runs N --burst N --widths 1,10,50 --profile DIR]: one figure family in about a minute, for
// working on a cost (issue #17). The full comparison, and the figures BENCHMARKS.md quotes, come from
// `npm run bench`; this prints the same ratios for the part asked for, against baselines measured here.
// --profile DIR: the API and the worker write CPU profiles (.cpuprofile, for Chrome's DevTools) there.
// BENCH_NODE_ARGS in the environment: more Node options for both (e.g. `-r ./memory-log.js`).
// live (not in the default set): live runs' figures (#28). burst (not in the default set): --burst runs (default 2,000) started at once, each waiting 2 s on the
// model, on stepwise and on bare Temporal (full mode's scenario 3).
// fanout-together (not in the default set): two for_each runs of 50 items at max_concurrency 50 at once, with the database's peak connections.
// slow (not in the default set): scenario 7, a 5-step chain and a 10-call agent against a model answering in 500 ms, against the plain loop.
import 'reflect-metadata';
import { parseArgs } from 'node:util';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { createDataSource, OneTripPool } from '@app/persistence';
import { ModelFake, reply, type RecordedRequest } from '../test/support/model-fake';
import { ToolServer } from '../test/support/tool-server';
import { bareTemporalRunner } from './baselines/bare-temporal.runner';
import { floorRunners } from './baselines/floor.runner';
import { plainLoopRunner } from './baselines/plain-loop.runner';
import { AGENT_TOOL_CALLS } from './scenarios/agent';
import { measureAgentRounds } from './scenarios/agent-rounds';
import { liveTables, measureLive } from './scenarios/live';
import { measureFanOut, measureFanOutTogether } from './scenarios/fan-out';
import { measureOverhead, measureSequential } from './scenarios/overhead';
import { measureSlowModel, SLOW_CHAIN_STEPS } from './scenarios/slow-model';
import { measureStartRate } from './scenarios/start-rate';
import { measureWaiting, type WaitingResult } from './scenarios/waiting';
import { BENCH_TOOL, type Runner } from './support/runner';
import { round } from './support/stats';
import { stepwiseRunner } from './support/stepwise.runner';
import { startSystem, type System } from './support/system';
import { table } from './support/table';
import { runMain } from './support/main';

const SIZES = [1, 5, 20];

const delay = { ms: 0 };

const replies = (request: RecordedRequest) => {
  // Every answer waits the scenario's model delay (0 unless one sets it: the slow model's 500 ms, a fan-out's 200).
  const options = { delayMs: delay.ms || undefined };
  if (!request.body.tools?.length) return reply.text('ok', options);
  const done = request.body.messages.filter((message) => message.role === 'tool').length;
  return done < AGENT_TOOL_CALLS
    ? reply.toolCalls([{ name: BENCH_TOOL, arguments: { call: done } }], options)
    : reply.text('done', options);
};

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      only: { type: 'string', default: 'chain,agent,start' },
      runs: { type: 'string', default: '10' },
      burst: { type: 'string', default: '2000' },
      // fanout: the max_concurrency values measured.
      widths: { type: 'string', default: '1,10,50' },
      profile: { type: 'string' },
    },
  });
  const only = new Set(values.only!.split(','));
  const runs = Number(values.runs);
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const model = await ModelFake.start();
  model.respondWith(replies);
  const tools = await ToolServer.start({ [BENCH_TOOL]: (args) => ({ ok: true, args }) });
  const nodeArgs = [process.env.BENCH_NODE_ARGS ?? '', values.profile ? `--cpu-prof --cpu-prof-dir=${values.profile}` : '']
    .join(' ')
    .trim();
  // Live runs' scenario has 100 clients watch one run with the bench's one key.
  const extraEnv = { SSE_MAX_STREAMS_PER_KEY: '1000', ...(nodeArgs ? { BENCH_NODE_ARGS: nodeArgs } : {}) };
  const system = await startSystem(model.baseUrl, extraEnv);
  const bare = await bareTemporalRunner(system.config, model.baseUrl, tools.url(BENCH_TOOL));
  const floor = await floorRunners(system.config, model.baseUrl, tools.url(BENCH_TOOL));
  try {
    if (only.has('chain')) {
      const ours = await measureOverhead(system, model, SIZES, runs, 3);
      const [local, audited, ordinary] = [
        await measureSequential(floor.local, SIZES, runs, 3),
        await measureSequential(floor.auditedLocal, SIZES, runs, 3),
        await measureSequential(bare, SIZES, runs, 3),
      ];
      console.log(
        table(
          'chain (p50 ms)',
          [
            'steps',
            'run',
            'per-step overhead',
            'bare-local run',
            'bare-local per step',
            'vs bare-local',
            'audited bare-local run',
            'audited vs bare-local',
            'run vs audited',
            'bare run',
            'vs bare',
          ],
          ours.map((o, i) => [
            o.steps,
            o.run_ms.p50,
            round(o.per_step_overhead_ms.p50),
            local[i].run_ms.p50,
            round(local[i].run_ms.p50 / o.steps),
            round(o.per_step_overhead_ms.p50 / (local[i].run_ms.p50 / o.steps), 2),
            audited[i].run_ms.p50,
            round(audited[i].run_ms.p50 / local[i].run_ms.p50, 2),
            round(o.run_ms.p50 / audited[i].run_ms.p50, 2),
            ordinary[i].run_ms.p50,
            round(o.per_step_overhead_ms.p50 / (ordinary[i].run_ms.p50 / o.steps), 2),
          ]),
        ),
      );
    }
    if (only.has('agent')) {
      const agent = await measureAgentRounds({
        system,
        toolUrl: tools.url(BENCH_TOOL),
        model,
        replies,
        bareAgent: floor.agent,
        bareLocalAgent: floor.localAgent,
        auditedLocalAgent: floor.auditedLocal,
        runs: Math.max(1, Math.round(runs / 5)),
        queuedToo: true,
      });
      console.log(
        table(
          'agent rounds (per round ms)',
          [
            'rounds',
            'stepwise',
            'stepwise, queued rounds',
            'bare agent',
            'vs bare agent',
            'bare-local agent',
            'vs bare-local agent',
            'audited bare-local agent',
            'audited vs bare-local',
            'vs audited',
          ],
          agent.map((a) => [
            a.rounds,
            a.stepwise.per_tool_call_round_ms,
            a.stepwise_queued!.per_tool_call_round_ms,
            a.bare_agent.per_tool_call_round_ms,
            a.vs_bare_agent,
            a.bare_local_agent.per_tool_call_round_ms,
            a.vs_bare_local_agent,
            a.audited_local_agent!.per_tool_call_round_ms,
            round(a.audited_local_agent!.per_tool_call_round_ms / a.bare_local_agent.per_tool_call_round_ms, 2),
            a.vs_audited_local_agent!,
          ]),
        ),
      );
    }
    if (only.has('start')) {
      const start = await measureStartRate(system, 4000);
      console.log(
        table(
          'POST /runs alone',
          ['requests/s', 'errors', 'p50', 'p99', 'bare starts/s', 'vs bare'],
          [
            [
              round(start.requests_per_second),
              start.errors,
              start.latency_ms.p50,
              start.latency_ms.p99,
              round(start.bare_starts_per_second),
              start.vs_bare,
            ],
          ],
        ),
      );
      for (const [reason, count] of Object.entries(start.failures)) console.log(`   ${count} failed with ${reason}`);
    }
    if (only.has('live')) {
      const live = await measureLive(
        system,
        model,
        replies,
        { firstDeltaRuns: Math.max(10, runs * 3), watchers: 100 },
        {
          unstreamed: () => startSystem(model.baseUrl, { ...extraEnv, MODEL_STREAMING: 'off' }),
          pairs: runs,
        },
      );
      for (const printed of liveTables(live, 'live runs')) console.log(printed);
    }
    if (only.has('fanout')) {
      const fanOut = await measureFanOut(system, delay, {
        items: 100,
        modelMs: 200,
        widths: values.widths!.split(',').map(Number),
        runs: Math.max(1, Math.round(runs / 5)),
      });
      console.log(
        table(
          'for_each over 100 items, a 200 ms model (ms)',
          ['max_concurrency', 'run p50', 'run min', 'run max', 'ideal', 'vs ideal', 'per item over the model'],
          fanOut.map((f) => [
            f.concurrency,
            f.run_ms.p50,
            f.run_ms.min,
            f.run_ms.max,
            f.ideal_ms,
            f.vs_ideal,
            round(((f.run_ms.p50 - f.ideal_ms) * f.concurrency) / 100),
          ]),
        ),
      );
    }
    if (only.has('fanout-together')) {
      const together = await measureFanOutTogether(system, delay, { items: 50, modelMs: 200, width: 50, runs: 2 });
      console.log(
        table(
          'for_each runs at once, 50 items each at max_concurrency 50, a 200 ms model',
          ['runs', 'completed', 'wall ms', 'peak MySQL connections (API + worker)', 'DATABASE_POOL_SIZE (each process)'],
          [[together.runs, together.completed, together.wall_ms, together.peak_connections, together.pool_size]],
        ),
      );
    }
    if (only.has('slow')) await printSlowModel(system, model.baseUrl, tools.url(BENCH_TOOL), runs);
    if (only.has('burst')) await printBurst(system, bare, tools.url(BENCH_TOOL), Number(values.burst));
  } finally {
    await Promise.all([bare.close(), floor.close()]);
    await system.stop();
    await Promise.all([model.close(), tools.close()]);
  }
}

/** Scenario 7 of `npm run bench`: where a 500-ms model dominates, stepwise against the plain loop (same calls and audit rows). */
async function printSlowModel(system: System, modelUrl: string, toolUrl: string, runs: number): Promise<void> {
  const dataSource = await createDataSource(system.config.databaseUrl).initialize();
  const oneTrip = OneTripPool.open(system.config.databaseUrl, 10);
  try {
    const plain = plainLoopRunner(dataSource, oneTrip, modelUrl, toolUrl);
    const slow = await measureSlowModel(stepwiseRunner(system, toolUrl), plain, delay, { modelMs: 500, runs, warmup: 2 });
    console.log(
      table(
        `a model answering in 500 ms (${SLOW_CHAIN_STEPS}-step chain, agent with ${AGENT_TOOL_CALLS} tool calls; run ms)`,
        ['workload', 'run p50', 'plain loop p50', 'vs plain'],
        slow.map((s) => [s.workload, s.stepwise_run_ms.p50, s.plain_run_ms.p50, s.vs_plain]),
      ),
    );
  } finally {
    await oneTrip.close();
    await dataSource.destroy();
  }
}

/** `runs` single-step runs started at once, each waiting 2 s on the model, on stepwise then bare Temporal. */
async function printBurst(system: System, bare: Runner, toolUrl: string, runs: number): Promise<void> {
  delay.ms = 2000;
  const results: (WaitingResult & { runner: string })[] = [];
  for (const runner of [stepwiseRunner(system, toolUrl), bare]) {
    const processes: Record<string, number> =
      runner === bare ? { bench: process.pid } : { worker: system.worker.pid!, api: system.api.pid! };
    results.push({ runner: runner.name, ...(await measureWaiting(await runner.prepareChain(1), runs, processes, delay.ms)) });
  }
  delay.ms = 0;
  console.log(
    table(
      `${runs} runs started at once, each waiting 2 s on the model`,
      ['runner', 'wall s', 'failed', 'peak RSS MB', 'vs bare'],
      results.map((r) => [
        r.runner,
        round(r.wall_s),
        r.failed,
        Object.entries(r.peak_rss_mb)
          .map(([name, mb]) => `${name} ${mb}`)
          .join(', '),
        round(r.wall_s / results[1].wall_s, 2),
      ]),
    ),
  );
  for (const r of results)
    for (const [reason, count] of Object.entries(r.failures)) console.log(`   ${r.runner}: ${count} failed with ${reason}`);
}

runMain(main);
