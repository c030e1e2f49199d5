// "Close to the floor" (issue #17): stepwise against the lowest Temporal can go on this machine. A chain
// against bare Temporal with local activities, single-step throughput against bare Temporal, agent rounds
// against a like-for-like bare agent at 10 and 50 rounds, and POST /runs alone. Beside each local floor, the
// same with the least durable audit (two commits a call): the part of the gap any audit pays.
import type { ModelFake, ReplyHandler } from '../../test/support/model-fake';
import type { FloorRunners } from '../baselines/floor.runner';
import type { BenchMode } from '../support/modes';
import { round, type Distribution } from '../support/stats';
import type { System } from '../support/system';
import { table } from '../support/table';
import { growth, measureAgentRounds } from './agent-rounds';
import { measureSequential, type OverheadResult } from './overhead';
import { measureStartRate } from './start-rate';

const ratio = (ours: number, baseline: number) => round(ours / baseline, 2);

export interface FloorInput {
  system: System;
  model: ModelFake;
  /** The bench's usual model replies, put back after the agent rounds. */
  replies: ReplyHandler;
  toolUrl: string;
  floor: FloorRunners;
  mode: BenchMode;
  overhead: OverheadResult[];
  /** The ordinary bare Temporal chain's run times, per size (scenario 1). */
  bare: { steps: number; run_ms: Distribution }[];
  /** Scenario 2's rows: each runner's runs/s under its name. */
  throughput: Record<string, unknown>[];
  print(text: string): void;
}

type Rate = { runs_per_second: { median: number } };

export async function measureFloor({ system, model, replies, toolUrl, floor, mode, overhead, bare, throughput, print }: FloorInput) {
  const local = await measureSequential(floor.local, mode.sizes, mode.runs, mode.warmup);
  const audited = await measureSequential(floor.auditedLocal, mode.sizes, mode.runs, mode.warmup);
  const chain = overhead.map((o, i) => {
    const [localMs, auditedMs, bareMs] = [local[i].run_ms.p50, audited[i].run_ms.p50, bare[i].run_ms.p50];
    return {
      steps: o.steps,
      run_ms_p50: o.run_ms.p50,
      per_step_overhead_ms_p50: round(o.per_step_overhead_ms.p50),
      bare_local_run_ms: local[i].run_ms,
      bare_run_ms_p50: bareMs,
      bare_local_per_step_ms_p50: round(localMs / o.steps),
      bare_per_step_ms_p50: round(bareMs / o.steps),
      run_vs_bare_local: ratio(o.run_ms.p50, localMs),
      audited_local_run_ms: audited[i].run_ms,
      audited_vs_bare_local: ratio(auditedMs, localMs),
      run_vs_audited_local: ratio(o.run_ms.p50, auditedMs),
      per_step_vs_bare_local: ratio(o.per_step_overhead_ms.p50, localMs / o.steps),
      per_step_vs_bare: ratio(o.per_step_overhead_ms.p50, bareMs / o.steps),
    };
  });
  print(
    table(
      'Floor 1. Chain against bare Temporal with local activities (p50 ms; bare per step = run / steps)',
      [
        'steps',
        'run',
        'bare-local run',
        'vs bare-local',
        'audited bare-local run',
        'audited vs bare-local',
        'vs audited',
        'per-step overhead',
        'bare-local per step',
        'vs bare-local',
        'bare per step',
        'vs bare',
      ],
      chain.map((c) => [
        c.steps,
        c.run_ms_p50,
        c.bare_local_run_ms.p50,
        c.run_vs_bare_local,
        c.audited_local_run_ms.p50,
        c.audited_vs_bare_local,
        c.run_vs_audited_local,
        c.per_step_overhead_ms_p50,
        c.bare_local_per_step_ms_p50,
        c.per_step_vs_bare_local,
        c.bare_per_step_ms_p50,
        c.per_step_vs_bare,
      ]),
    ),
  );

  const singleStep = throughput
    .filter((row) => row.steps === 1)
    .map((row) => {
      const [o, b] = [(row.stepwise as Rate).runs_per_second.median, (row['bare Temporal'] as Rate).runs_per_second.median];
      return { concurrency: row.concurrency as number, runs_per_second: o, bare_runs_per_second: b, vs_bare: ratio(o, b) };
    });
  print(
    table(
      'Floor 2. Single-step throughput against bare Temporal (runs/s, from 2.)',
      ['concurrency', 'runs/s', 'bare runs/s', 'vs bare'],
      singleStep.map((t) => [t.concurrency, t.runs_per_second, t.bare_runs_per_second, t.vs_bare]),
    ),
  );

  const agent = await measureAgentRounds({
    system,
    toolUrl,
    model,
    replies,
    bareAgent: floor.agent,
    bareLocalAgent: floor.localAgent,
    auditedLocalAgent: floor.auditedLocal,
    runs: mode.agentRuns,
  });
  const agentGrowth = {
    stepwise: growth(agent, 'stepwise'),
    bare_agent: growth(agent, 'bare_agent'),
    bare_local_agent: growth(agent, 'bare_local_agent'),
  };
  print(
    table(
      'Floor 3. Agent rounds against a bare agent with the same activities, ordinary and local (per round ms)',
      [
        'rounds',
        'per round',
        'bare agent per round',
        'vs bare agent',
        'bare-local agent per round',
        'vs bare-local agent',
        'audited bare-local per round',
        'vs audited',
      ],
      agent.map((a) => [
        a.rounds,
        a.stepwise.per_tool_call_round_ms,
        a.bare_agent.per_tool_call_round_ms,
        a.vs_bare_agent,
        a.bare_local_agent.per_tool_call_round_ms,
        a.vs_bare_local_agent,
        a.audited_local_agent!.per_tool_call_round_ms,
        a.vs_audited_local_agent!,
      ]),
    ),
  );
  print(
    `   per round at ${agent.at(-1)!.rounds} rounds / at ${agent[0].rounds}: stepwise ${agentGrowth.stepwise}, bare agent ${agentGrowth.bare_agent}, bare-local agent ${agentGrowth.bare_local_agent}`,
  );

  const start = await measureStartRate(system, mode.periodMs);
  print(
    table(
      `Floor 4. POST /runs alone (no worker polls; ${start.concurrency} at a time, ${mode.periodMs / 1000} s)`,
      ['requests/s', 'errors', 'latency p50', 'p99', 'bare starts/s', 'vs bare', 'terminated'],
      [
        [
          round(start.requests_per_second),
          start.errors,
          start.latency_ms.p50,
          start.latency_ms.p99,
          round(start.bare_starts_per_second),
          start.vs_bare,
          start.terminated,
        ],
      ],
    ),
  );
  for (const [reason, count] of Object.entries(start.failures)) print(`   POST /runs alone: ${count} failed with ${reason}`);

  return {
    chain,
    single_step_throughput: singleStep,
    agent_rounds: agent,
    agent_round_growth: agentGrowth,
    post_runs_alone: { ...start, requests_per_second: round(start.requests_per_second) },
  };
}
