// The benchmark's smoke run: every scenario runs on the real stack and every figure is printed and saved.
// (Speed is judged by reading the bench's figures, never by asserting on them here.)
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { loadConfig } from '@app/config';
import type { measureFloor } from '../bench/scenarios/floor';

const ENTRY = path.resolve(__dirname, '../dist/bench/run.js');

const FLOOR_HEADINGS = [
  'Floor 1. Chain against bare Temporal with local activities',
  'Floor 2. Single-step throughput against bare Temporal',
  'Floor 3. Agent rounds',
  'Floor 4. POST /runs alone',
];

/** Issue #17's figures: every one measured and positive, and POST /runs alone left no execution running. */
async function expectFloorFigures(floor: Awaited<ReturnType<typeof measureFloor>>): Promise<void> {
  expect(floor.chain.map((c) => c.steps)).toEqual([1, 5]);
  for (const c of floor.chain) {
    for (const figure of [
      c.bare_local_run_ms.p50,
      c.bare_local_per_step_ms_p50,
      c.run_vs_bare_local,
      c.per_step_vs_bare_local,
      c.per_step_vs_bare,
    ])
      expect(figure).toBeGreaterThan(0);
  }
  expect(floor.single_step_throughput.map((t) => t.concurrency)).toEqual([1, 10]);
  for (const t of floor.single_step_throughput) expect(t.vs_bare).toBeGreaterThan(0);
  expect(floor.agent_rounds.map((a) => a.rounds)).toEqual([10, 50]);
  for (const a of floor.agent_rounds) {
    expect([a.stepwise.tool_calls, a.bare_agent.tool_calls]).toEqual([a.rounds, a.rounds]);
    expect(a.bare_local_agent.tool_calls).toBe(a.rounds);
    for (const figure of [a.stepwise.per_tool_call_round_ms, a.bare_agent.per_tool_call_round_ms, a.vs_bare_agent])
      expect(figure).toBeGreaterThan(0);
    // A round of the local bare agent may cost less than the one-step run's spread: measured, not necessarily positive.
    expect(Number.isFinite(a.vs_bare_local_agent)).toBe(true);
  }
  expect(floor.agent_round_growth.stepwise).toBeGreaterThan(0);
  expect(floor.agent_round_growth.bare_agent).toBeGreaterThan(0);
  const start = floor.post_runs_alone;
  expect(start).toMatchObject({ concurrency: 50, errors: 0 });
  expect(start.requests_per_second).toBeGreaterThan(0);
  expect(start.terminated).toBeGreaterThan(0);
  const config = loadConfig();
  const connection = await Connection.connect({ address: config.temporal.address });
  try {
    const client = new Client({ connection, namespace: config.temporal.namespace });
    const { count } = await client.workflow.count(`TaskQueue = "${start.task_queue}" AND ExecutionStatus = "Running"`);
    expect(count).toBe(0);
  } finally {
    await connection.close();
  }
}

describe('npm run bench', () => {
  it('runs every scenario and prints every figure (smoke sizes)', async () => {
    expect(existsSync(ENTRY)).toBe(true);
    const out = path.join(mkdtempSync(path.join(os.tmpdir(), 'bench-')), 'results.json');
    const result = spawnSync(process.execPath, [ENTRY, '--mode', 'smoke', '--out', out], { encoding: 'utf8', timeout: 240_000 });
    expect(result.stderr).not.toMatch(/Error/);
    expect(result.status).toBe(0);
    for (const heading of [
      '1. Step overhead',
      'baselines: run p50',
      '2. Throughput',
      '3. 20 runs waiting',
      '5. Agent with 10 tool calls',
      '6. Tracing',
      '7. A model that answers in',
      "8. Live runs: provider's first piece -> SSE client",
      ...FLOOR_HEADINGS,
    ]) {
      expect(result.stdout).toContain(heading);
    }

    const figures = JSON.parse(readFileSync(out, 'utf8'));
    expect(figures).toMatchObject({ mode: 'smoke', machine: { cores: expect.any(Number) } });
    const { overhead, overhead_baselines, throughput, waiting, agent, tracing, slow_model } = figures.scenarios;
    expect(overhead.map((o: { steps: number }) => o.steps)).toEqual([1, 5]);
    for (const o of overhead) {
      for (const figure of [o.run_ms.p50, o.per_step_overhead_ms.p99, o.first_model_request_ms.p50]) expect(figure).toBeGreaterThan(0);
    }
    expect(overhead_baselines.map((b: { runner: string }) => b.runner)).toEqual(['plain loop', 'bare Temporal']);
    expect(throughput).toHaveLength(4);
    for (const row of throughput) {
      for (const runner of ['stepwise', 'plain loop', 'bare Temporal']) {
        expect(row[runner].runs_per_second.median).toBeGreaterThan(0);
        expect(row[runner].errors).toBe(0);
      }
    }
    expect(waiting.map((w: { runner: string; failed: number }) => [w.runner, w.failed])).toEqual([
      ['stepwise', 0],
      ['plain loop', 0],
      ['bare Temporal', 0],
    ]);
    expect(waiting[0].peak_rss_mb).toEqual({ worker: expect.any(Number), api: expect.any(Number) });
    expect(agent.map((a: { runner: string }) => a.runner)).toEqual(['stepwise', 'stepwise (MCP tool)', 'plain loop', 'bare Temporal']);
    for (const a of agent) expect(a.per_tool_call_round_ms).toBeGreaterThan(0);
    expect([tracing.off.run_ms.p50, tracing.on.run_ms.p50, tracing.spans_received].every((figure: number) => figure > 0)).toBe(true);
    expect(slow_model.map((s: { workload: string; vs_plain: number }) => [s.workload, s.vs_plain > 0])).toEqual([
      ['chain', true],
      ['agent', true],
    ]);
    await expectFloorFigures(figures.scenarios.floor);
    const { live } = figures.scenarios;
    expect(live.first_delta.first_delta_ms.n).toBe(3);
    expect(live.watchers.map((w: { watchers: number; complete: number }) => [w.watchers, w.complete])).toEqual([
      [1, 1],
      [5, 5],
    ]);
  }, 250_000); // the bench's own bound (spawnSync's timeout) and its checks
});
