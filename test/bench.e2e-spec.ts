// The benchmark's smoke run: every scenario runs on the real stack and every figure is printed and saved.
// (Speed is judged by reading the bench's figures, never by asserting on them here.)
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ENTRY = path.resolve(__dirname, '../dist/bench/run.js');

describe('npm run bench', () => {
  it('runs every scenario and prints every figure (smoke sizes)', () => {
    expect(existsSync(ENTRY)).toBe(true);
    const out = path.join(mkdtempSync(path.join(os.tmpdir(), 'bench-')), 'results.json');
    const result = spawnSync(process.execPath, [ENTRY, '--mode', 'smoke', '--out', out], { encoding: 'utf8', timeout: 170_000 });
    expect(result.stderr).not.toMatch(/Error/);
    expect(result.status).toBe(0);
    for (const heading of ['1. Step overhead', 'baselines: run p50', '2. Throughput', '3. 20 runs waiting', '5. Agent with 10 tool calls', '6. Tracing']) {
      expect(result.stdout).toContain(heading);
    }

    const figures = JSON.parse(readFileSync(out, 'utf8'));
    expect(figures).toMatchObject({ mode: 'smoke', machine: { cores: expect.any(Number) } });
    const { overhead, overhead_baselines, throughput, waiting, agent, tracing } = figures.scenarios;
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
    expect(waiting.map((w: { runner: string; failed: number }) => [w.runner, w.failed])).toEqual([['stepwise', 0], ['plain loop', 0], ['bare Temporal', 0]]);
    expect(waiting[0].peak_rss_mb).toEqual({ worker: expect.any(Number), api: expect.any(Number) });
    for (const a of agent) expect(a.per_tool_call_round_ms).toBeGreaterThan(0);
    expect([tracing.off.run_ms.p50, tracing.on.run_ms.p50, tracing.spans_received].every((figure: number) => figure > 0)).toBe(true);
  });
});
