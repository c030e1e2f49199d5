// node dist/bench/key-storm.js [--storms N] [--guesses N] [--profile DIR] (after npm run build, with DATABASE_URL and
// TEMPORAL_ADDRESS of a migrated stack): what a storm of bad keys from one address costs the API (#26). The built
// API runs in a process of its own with the product's per-address limits (as the hostile-tenant spec starts it);
// each storm sends N guesses at once from 127.0.0.3, each on a connection of its own, while a prober of its own
// asks /health/live from 127.0.0.2 every 20 ms. Guesses are `sk_guess_<i>` (cannot be a key), or with
// --well-formed keys of the right shape (each costs a lookup). Prints the storms' answers, the API's CPU time per storm, and
// the probes taken during the storms. --profile writes the API's CPU profile (--cpu-prof) to DIR.
import { parseArgs } from 'node:util';
import { testConfig } from '../test/support/api';
import { ApiProcess } from '../test/support/api-process';
import { startLivenessProber } from '../test/support/liveness-prober';
import { storm } from '../test/support/storm';
import { table } from './support/table';
import { runMain } from './support/main';

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const round = (ms: number) => Math.round(ms * 10) / 10;

/** The API process's CPU time so far (user + system), read from /proc. */
async function cpuMs(pid: number): Promise<number> {
  const { readFile } = await import('node:fs/promises');
  const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1].split(' ');
  // utime and stime are fields 14 and 15 of stat (11 and 12 after the command), in clock ticks (100 a second).
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      storms: { type: 'string', default: '5' },
      guesses: { type: 'string', default: '300' },
      profile: { type: 'string' },
      'well-formed': { type: 'boolean', default: false },
    },
  });
  const api = await ApiProcess.start(
    testConfig(),
    {
      RATE_LIMIT_PER_MINUTE: '1000000',
      RATE_LIMIT_BURST: '100000',
      ADDRESS_RATE_LIMIT_PER_MINUTE: '60',
      ADDRESS_RATE_LIMIT_BURST: '100',
      API_MAX_CONNECTIONS_PER_ADDRESS: '64',
    },
    60_000,
    values.profile ? ['--cpu-prof', `--cpu-prof-dir=${values.profile}`] : [],
  );
  try {
    const rows: (string | number)[][] = [];
    const slow: number[] = [];
    const all: number[] = [];
    for (let i = 0; i < Number(values.storms); i++) {
      // Each storm from a fresh bucket: a minute's worth of tokens comes back in 60 s; instead, wait for the
      // burst to refill would take too long, so later storms meet an emptier bucket, as a repeated attack does.
      const prober = startLivenessProber(`${api.baseUrl}/health/live`);
      await new Promise((resolve) => setTimeout(resolve, 200));
      const before = await cpuMs(api.pid);
      const guesses = await storm(`${api.baseUrl}/workflows`, Number(values.guesses), '127.0.0.3', (g) =>
        values['well-formed'] ? `sk_${String(g).padStart(32, 'A')}` : `sk_guess_${g}`,
      );
      const cpu = (await cpuMs(api.pid)) - before;
      await new Promise((resolve) => setTimeout(resolve, 200));
      const probes = (await prober.stop()).map((probe) => probe.ms).sort((a, b) => a - b);
      all.push(...probes);
      slow.push(...probes.filter((ms) => ms >= 100));
      const counts = new Map<string, number>();
      for (const guess of guesses) counts.set(`${guess.status} ${guess.code}`, (counts.get(`${guess.status} ${guess.code}`) ?? 0) + 1);
      rows.push([
        i + 1,
        [...counts].map(([answer, count]) => `${count} × ${answer}`).join(', '),
        cpu,
        probes.length,
        round(percentile(probes, 50)),
        round(probes[probes.length - 1]),
      ]);
    }
    all.sort((a, b) => a - b);
    console.log(
      table(
        `${values.guesses} bad keys at once, ${values.storms} storms`,
        ['storm', 'answers', 'API CPU ms', 'probes', 'median ms', 'slowest ms'],
        rows,
      ),
    );
    console.log(
      `\nall probes: ${all.length}, median ${round(percentile(all, 50))} ms, p95 ${round(percentile(all, 95))} ms, slowest ${round(all[all.length - 1])} ms, ${slow.length} at 100 ms or more`,
    );
  } finally {
    await api.stop();
  }
}

runMain(main);
