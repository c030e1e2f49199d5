// npm run bench:scale-out (scripts/bench-scale-out.sh, which brings up a real Temporal server on PostgreSQL
// and points TEMPORAL_ADDRESS at it): single-step runs/s and latency with 1, 2 and 4 workers behind two
// APIs, and each component's CPU per run (the APIs, the workers, the Temporal server, PostgreSQL, MySQL),
// from /proc over the measuring window. Not part of npm test: its server takes minutes to build.
// [--workers 1,2,4] [--concurrency 50] [--seconds 8] [--out FILE]
import 'reflect-metadata';
import { type ChildProcess } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { ModelFake, reply } from '../test/support/model-fake';
import { measureThroughput } from './scenarios/throughput';
import { round } from './support/stats';
import { startProcess, startSystem } from './support/system';
import { table } from './support/table';
import { runMain } from './support/main';

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

/** CPU seconds a process has used (user + system), from /proc; 0 once it is gone. */
function cpuSeconds(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

/** The processes whose command name is `name` (every PostgreSQL backend, say). */
function pidsNamed(name: string): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === name;
      } catch {
        return false;
      }
    })
    .map(Number);
}

type Components = Record<string, () => number[]>;

const cpuOf = (components: Components): Record<string, number> =>
  Object.fromEntries(Object.entries(components).map(([name, pids]) => [name, pids().reduce((sum, pid) => sum + cpuSeconds(pid), 0)]));

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      workers: { type: 'string', default: '1,2,4' },
      concurrency: { type: 'string', default: '50' },
      seconds: { type: 'string', default: '8' },
      out: { type: 'string' },
    },
  });
  const counts = values.workers!.split(',').map(Number);
  const concurrency = Number(values.concurrency);
  const periodMs = Number(values.seconds) * 1000;
  const serverPid = Number(process.env.TEMPORAL_SERVER_PID ?? NaN);
  Runtime.install({ logger: new DefaultLogger('WARN') });

  const model = await ModelFake.start();
  model.respondWith(() => reply.text('ok'));
  const system = await startSystem(model.baseUrl);
  const workers: ChildProcess[] = [system.worker];
  const secondPort = system.config.api.port + 1;
  const secondApi = await startProcess('apps/api/src/main.js', { ...system.env, API_PORT: String(secondPort) }, 'API listening');
  const apiUrls = [system.apiUrl, `http://127.0.0.1:${secondPort}/api/v1`];
  const components: Components = {
    apis: () => [system.api.pid!, secondApi.pid!],
    workers: () => workers.map((worker) => worker.pid!),
    temporal: () => (Number.isFinite(serverPid) ? [serverPid] : []),
    postgres: () => pidsNamed('postgres'),
    mysql: () => pidsNamed('mariadbd').concat(pidsNamed('mysqld')),
    bench: () => [process.pid],
  };
  const results = [];
  try {
    const workflowUuid = await system.createWorkflow([
      { type: 'custom_llm', name: 'one', model: 'bench-model', system_prompt: 'Summarise <<trigger_output>>' },
    ]);
    let next = 0;
    // Each run's POST goes to the next API in turn; its end is awaited on Temporal.
    const runOnce = async () => {
      const apiUrl = apiUrls[next++ % apiUrls.length];
      const response = await fetch(`${apiUrl}/workflows/${workflowUuid}/runs`, {
        method: 'POST',
        headers: { authorization: `Bearer ${system.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ trigger_output: { bench: true } }),
      });
      const body = (await response.json()) as { uuid?: string };
      if (!response.ok || !body.uuid) throw new Error(`POST /runs answered ${response.status}`);
      const result = await system.waitForRun(body.uuid);
      if (result.status !== 'completed') throw new Error(`run ended ${result.status}`);
    };
    for (const count of counts) {
      while (workers.length < count)
        workers.push(
          await startProcess('apps/worker/src/main.js', system.env, 'worker polling', [
            `--max-old-space-size=${process.env.WORKER_HEAP_MB ?? 256}`,
          ]),
        );
      await measureThroughput(runOnce, concurrency, 2000); // warm-up: every worker and API has served runs
      const before = cpuOf(components);
      const sample = await measureThroughput(runOnce, concurrency, periodMs);
      const after = cpuOf(components);
      const cpuMsPerRun = Object.fromEntries(
        Object.keys(components).map((name) => [name, round(((after[name] - before[name]) * 1000) / Math.max(1, sample.completed), 2)]),
      );
      results.push({
        workers: count,
        apis: apiUrls.length,
        concurrency,
        runs_per_second: round(sample.runs_per_second),
        errors: sample.errors,
        latency_ms: sample.latency_ms,
        cpu_ms_per_run: cpuMsPerRun,
      });
      for (const [reason, n] of Object.entries(sample.failures)) console.log(`   ${count} worker(s): ${n} failed with ${reason}`);
    }
  } finally {
    for (const child of [...workers.slice(1), secondApi]) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    await system.stop();
    await model.close();
  }
  const names = Object.keys(components);
  console.log(
    table(
      `Single-step runs against ${process.env.TEMPORAL_ADDRESS} (two APIs, ${concurrency} at a time, ${periodMs / 1000} s; CPU ms per run)`,
      ['workers', 'runs/s', 'errors', 'p50 ms', 'p99 ms', ...names],
      results.map((r) => [
        r.workers,
        r.runs_per_second,
        r.errors,
        r.latency_ms.p50,
        r.latency_ms.p99,
        ...names.map((n) => r.cpu_ms_per_run[n]),
      ]),
    ),
  );
  const file = values.out ?? path.resolve(__dirname, '../../bench/results', `${new Date().toISOString().slice(0, 10)}-scale-out.json`);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify({ date: new Date().toISOString(), temporal: process.env.TEMPORAL_ADDRESS, results }, null, 2));
  console.log(`\nfigures written to ${file}`);
}

runMain(main);
