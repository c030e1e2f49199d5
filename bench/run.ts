// npm run bench [-- --mode quick|full|smoke] [--out FILE]: measures what the orchestration costs, against
// a plain in-process loop and bare Temporal measured in the same run, and prints a table and JSON.
import 'reflect-metadata';
import { execSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { createDataSource, OneTripPool } from '@app/persistence';
import { ModelFake, reply, type RecordedRequest } from '../test/support/model-fake';
import { McpTestServer } from '../test/support/mcp-test-server';
import { ToolServer } from '../test/support/tool-server';
import { bareTemporalRunner } from './baselines/bare-temporal.runner';
import { floorRunners } from './baselines/floor.runner';
import { plainLoopRunner } from './baselines/plain-loop.runner';
import { AGENT_TOOL_CALLS, measureAgent, type AgentResult } from './scenarios/agent';
import { measureFloor } from './scenarios/floor';
import { measureSlowModel, SLOW_CHAIN_STEPS } from './scenarios/slow-model';
import { measureOverhead, measureSequential } from './scenarios/overhead';
import { measureThroughput } from './scenarios/throughput';
import { liveTables, measureLive } from './scenarios/live';
import { measureTracing } from './scenarios/tracing';
import { measureWaiting, type WaitingResult } from './scenarios/waiting';
import { MODES } from './support/modes';
import { BENCH_TOOL, type Runner } from './support/runner';
import { repeated, round } from './support/stats';
import { stepwiseRunner } from './support/stepwise.runner';
import { startSystem } from './support/system';
import { table } from './support/table';
import { runMain } from './support/main';

const ratio = (ours: number, baseline: number) => round(ours / baseline, 2);

/** The fake answers at once (or after `delay.ms`); agents get calls to their tool (HTTP or MCP) until they have made ten. */
function benchReplies(delay: { ms: number }) {
  return (request: RecordedRequest) => {
    const options = { delayMs: delay.ms || undefined };
    if (!request.body.tools?.length) return reply.text('ok', options);
    const done = request.body.messages.filter((message) => message.role === 'tool').length;
    const tool = request.body.tools.find((offered) => offered.function.name !== 'get_output')?.function.name ?? BENCH_TOOL;
    return done < AGENT_TOOL_CALLS ? reply.toolCalls([{ name: tool, arguments: { call: done } }], options) : reply.text('done', options);
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { mode: { type: 'string', default: 'quick' }, out: { type: 'string' } } });
  const modeName = values.mode as keyof typeof MODES;
  const mode = MODES[modeName];
  if (!mode) throw new Error(`--mode must be one of ${Object.keys(MODES).join(', ')}`);
  const began = Date.now();
  Runtime.install({ logger: new DefaultLogger('WARN') });

  const delay = { ms: 0 };
  const model = await ModelFake.start();
  model.respondWith(benchReplies(delay));
  const tools = await ToolServer.start({ [BENCH_TOOL]: (args) => ({ ok: true, args }) });
  const mcpServer = await McpTestServer.start();
  const toolUrl = tools.url(BENCH_TOOL);
  // Live runs' scenario has many clients watch one run with the bench's one key.
  const system = await startSystem(model.baseUrl, { SSE_MAX_STREAMS_PER_KEY: '1000' });
  const dataSource = await createDataSource(system.config.databaseUrl).initialize();
  const oneTrip = OneTripPool.open(system.config.databaseUrl, 10);
  const ours = stepwiseRunner(system, toolUrl);
  const oursMcp = stepwiseRunner(system, toolUrl, mcpServer.url);
  const baselines: Runner[] = [
    plainLoopRunner(dataSource, oneTrip, model.baseUrl, toolUrl),
    await bareTemporalRunner(system.config, model.baseUrl, toolUrl),
  ];
  const floor = await floorRunners(system.config, model.baseUrl, toolUrl);
  const out: string[] = [];
  const print = (text: string) => (out.push(text), console.log(text));
  print(`# stepwise bench (${modeName}) — ${new Date().toISOString()}`);

  try {
    // 1. Step overhead
    const overhead = await measureOverhead(system, model, mode.sizes, mode.runs, mode.warmup);
    const sequential = await Promise.all(
      baselines.map(async (runner) => ({
        runner: runner.name,
        results: await measureSequential(runner, mode.sizes, mode.runs, mode.warmup),
      })),
    );
    print(
      table(
        '1. Step overhead (runs one at a time, model answers at once)',
        ['steps', 'run p50', 'p95', 'p99', 'per-step overhead p50', 'p95', 'p99', 'POST -> 1st model request p50', 'vs plain', 'vs bare'],
        overhead.map((o, i) => [
          o.steps,
          o.run_ms.p50,
          o.run_ms.p95,
          o.run_ms.p99,
          round(o.per_step_overhead_ms.p50),
          round(o.per_step_overhead_ms.p95),
          round(o.per_step_overhead_ms.p99),
          o.first_model_request_ms.p50,
          ...sequential.map((b) => ratio(o.run_ms.p50, b.results[i].run_ms.p50)),
        ]),
      ),
    );
    print(
      table(
        '   baselines: run p50 (p95) ms',
        ['steps', ...sequential.map((b) => b.runner)],
        mode.sizes.map((steps, i) => [steps, ...sequential.map((b) => `${b.results[i].run_ms.p50} (${b.results[i].run_ms.p95})`)]),
      ),
    );

    // 2. Throughput
    const shapes = [1, 3];
    const throughput = [];
    for (const steps of shapes) {
      const runners = await Promise.all(
        [ours, ...baselines].map(async (runner) => ({ name: runner.name, runOnce: await runner.prepareChain(steps) })),
      );
      for (const concurrency of mode.concurrency) {
        const row: Record<string, unknown> = { steps, concurrency };
        for (const { name, runOnce } of runners) {
          const samples = [];
          for (let rep = 0; rep < (name === ours.name ? mode.reps : 1); rep++)
            samples.push(await measureThroughput(runOnce, concurrency, mode.periodMs));
          row[name] = {
            runs_per_second: repeated(samples.map((s) => round(s.runs_per_second))),
            errors: samples.reduce((n, s) => n + s.errors, 0),
            latency_ms: samples[0].latency_ms,
          };
          for (const sample of samples)
            for (const [reason, count] of Object.entries(sample.failures))
              print(`   ${name}, ${steps} step(s) at concurrency ${concurrency}: ${count} failed with ${reason}`);
        }
        throughput.push(row);
      }
    }
    type Tp = { runs_per_second: { median: number; min: number; max: number }; errors: number; latency_ms: { p50: number; p99: number } };
    print(
      table(
        `2. Throughput (${mode.periodMs / 1000} s per sample, ${mode.reps} sample(s); runs/s median [min-max])`,
        ['steps', 'concurrency', 'runs/s', 'errors', 'latency p50', 'p99', 'plain runs/s', 'bare runs/s', 'vs plain', 'vs bare'],
        throughput.map((row) => {
          const [o, p, b] = [row[ours.name], row[baselines[0].name], row[baselines[1].name]] as Tp[];
          return [
            row.steps as number,
            row.concurrency as number,
            `${o.runs_per_second.median} [${o.runs_per_second.min}-${o.runs_per_second.max}]`,
            o.errors,
            o.latency_ms.p50,
            o.latency_ms.p99,
            p.runs_per_second.median,
            b.runs_per_second.median,
            ratio(o.runs_per_second.median, p.runs_per_second.median),
            ratio(o.runs_per_second.median, b.runs_per_second.median),
          ];
        }),
      ),
    );

    // 3. Many waiting runs
    delay.ms = mode.waitingDelayMs;
    const waiting: (WaitingResult & { runner: string })[] = [];
    for (const runner of [ours, ...baselines]) {
      const runOnce = await runner.prepareChain(1);
      const processes: Record<string, number> =
        runner === ours ? { worker: system.worker.pid!, api: system.api.pid! } : { bench: process.pid };
      waiting.push({ runner: runner.name, ...(await measureWaiting(runOnce, mode.waitingRuns, processes, delay.ms)) });
    }
    delay.ms = 0;
    print(
      table(
        `3. ${mode.waitingRuns} runs waiting ${mode.waitingDelayMs} ms on the model`,
        ['runner', 'wall s', 'failed', 'peak RSS MB', 'vs plain', 'vs bare'],
        waiting.map((w) => [
          w.runner,
          round(w.wall_s),
          w.failed,
          Object.entries(w.peak_rss_mb)
            .map(([name, mb]) => `${name} ${mb}`)
            .join(', '),
          ratio(w.wall_s, waiting[1].wall_s),
          ratio(w.wall_s, waiting[2].wall_s),
        ]),
      ),
    );
    for (const w of waiting)
      for (const [reason, count] of Object.entries(w.failures)) print(`   ${w.runner}: ${count} failed with ${reason}`);

    // 5. Agent
    const agent: (AgentResult & { runner: string })[] = [];
    for (const runner of [ours, oursMcp, ...baselines])
      agent.push({ runner: runner.name, ...(await measureAgent(runner, mode.agentRuns, 1)) });
    const [plain, bare] = baselines.map((runner) => agent.find((a) => a.runner === runner.name)!);
    print(
      table(
        `5. Agent with ${AGENT_TOOL_CALLS} tool calls (a round = one model turn + one tool call; HTTP tool, MCP tool over streamable HTTP)`,
        ['runner', 'agent run ms', 'one-step run ms', 'per round ms', 'vs plain', 'vs bare'],
        agent.map((a) => [
          a.runner,
          a.agent_run_ms,
          a.one_step_run_ms,
          a.per_tool_call_round_ms,
          ratio(a.per_tool_call_round_ms, plain.per_tool_call_round_ms),
          ratio(a.per_tool_call_round_ms, bare.per_tool_call_round_ms),
        ]),
      ),
    );

    // 7. A model that answers in 500 ms
    const slowModel = await measureSlowModel(ours, baselines[0], delay, {
      modelMs: mode.slowModelMs,
      runs: mode.slowRuns,
      warmup: mode.slowWarmup,
    });
    print(
      table(
        `7. A model that answers in ${mode.slowModelMs} ms (${SLOW_CHAIN_STEPS}-step chain, agent with ${AGENT_TOOL_CALLS} tool calls; run ms, one at a time)`,
        ['workload', 'run p50', 'p95', 'plain loop p50', 'p95', 'vs plain'],
        slowModel.map((s) => [
          s.workload,
          s.stepwise_run_ms.p50,
          s.stepwise_run_ms.p95,
          s.plain_run_ms.p50,
          s.plain_run_ms.p95,
          s.vs_plain,
        ]),
      ),
    );

    const floorFigures = await measureFloor({
      system,
      model,
      replies: benchReplies(delay),
      toolUrl,
      floor,
      mode,
      overhead,
      bare: sequential[1].results,
      throughput,
      print,
    });

    // 6. Tracing
    const tracing = await measureTracing(system, model, mode.runs, mode.warmup);
    print(
      table(
        '6. Tracing (5-step chain, one run at a time)',
        ['tracing', 'run p50', 'p95', 'per-step overhead p50', 'spans exported'],
        [
          ['off', tracing.off.run_ms.p50, tracing.off.run_ms.p95, round(tracing.off.per_step_overhead_ms.p50), 0],
          ['on', tracing.on.run_ms.p50, tracing.on.run_ms.p95, round(tracing.on.per_step_overhead_ms.p50), tracing.spans_received],
        ],
      ),
    );

    // 8. Live runs
    const live = await measureLive(
      system,
      model,
      benchReplies(delay),
      mode.live,
      mode.live.compare
        ? {
            unstreamed: () => startSystem(model.baseUrl, { SSE_MAX_STREAMS_PER_KEY: '1000', MODEL_STREAMING: 'off' }),
            pairs: mode.runs * 2,
          }
        : null,
    );
    for (const printed of liveTables(live, '8. Live runs')) print(printed);

    const commit = (() => {
      try {
        return execSync('git rev-parse --short HEAD', { stdio: ['ignore', 'pipe', 'ignore'] })
          .toString()
          .trim();
      } catch {
        return 'unknown';
      }
    })();
    const results = {
      date: new Date().toISOString(),
      commit,
      mode: modeName,
      sizes: mode,
      duration_s: round((Date.now() - began) / 1000),
      machine: { cores: os.cpus().length, memory_gb: round(os.totalmem() / 2 ** 30), node: process.version },
      scenarios: {
        overhead,
        overhead_baselines: sequential,
        throughput,
        waiting,
        agent,
        slow_model: slowModel,
        tracing,
        floor: floorFigures,
        live,
      },
    };
    const file = values.out ?? path.resolve(__dirname, '../../bench/results', `${new Date().toISOString().slice(0, 10)}.json`);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, JSON.stringify(results, null, 2));
    print(`\nfigures written to ${file} (${round((Date.now() - began) / 1000)} s)`);
  } finally {
    await Promise.all([...baselines, floor].map((runner) => runner.close()));
    await Promise.all([dataSource.destroy(), oneTrip.close()]);
    await system.stop();
    await Promise.all([model.close(), tools.close(), mcpServer.close()]);
  }
}

runMain(main);
