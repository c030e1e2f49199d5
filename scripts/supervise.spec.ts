// npm start's supervision (scripts/lib/supervise.sh), run for real by bash over stand-in processes: an "API"
// that stays up and a "worker" that dies as a worker whose heap ran out does (exit 134).
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const ROOT = path.join(__dirname, '..');

/**
 * A Node process that writes its name and pid to $RUNS, stops on SIGINT or SIGTERM as the API and the worker
 * do (a background process of a script starts with SIGINT ignored: only a handler of its own takes it), and
 * after `lifeMs` exits 134, as V8 does when the heap runs out.
 */
const standIn = (name: string, lifeMs: number | null) =>
  `node -e 'require("fs").appendFileSync(process.env.RUNS, "${name} " + process.pid + "\\n"); for (const s of ["SIGINT", "SIGTERM"]) process.on(s, () => process.exit(0)); setTimeout(() => process.exit(${lifeMs === null ? 0 : 134}), ${lifeMs ?? 600_000})' </dev/null &`;

/** The script's start: both processes launched the way start.sh launches its own. */
const LAUNCH = `
set -euo pipefail
source scripts/lib/common.sh
source scripts/lib/supervise.sh
launch_api() { ${standIn('api', null)} }
launch_worker() { ${standIn('worker', 200)} }
supervise api worker
`;

interface Harness {
  child: ChildProcess;
  /** What the script wrote to stderr so far (its [stepwise] lines). */
  log(): string;
  /** The processes launched, in order, with their pids. */
  runs(): { name: string; pid: number }[];
  exited: Promise<number | null>;
  waitFor(what: () => boolean, describe: string): Promise<void>;
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('npm start supervision', () => {
  let dir: string;
  let harness: Harness | undefined;

  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'supervise-'));
  });
  afterEach(() => {
    if (harness?.child.exitCode === null) harness.child.kill('SIGKILL');
    for (const { pid } of harness?.runs() ?? []) if (alive(pid)) process.kill(pid, 'SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  function run(script: string): Harness {
    const runsFile = path.join(dir, 'runs');
    const child = spawn('bash', ['-c', script], {
      cwd: ROOT,
      env: { ...process.env, RUNS: runsFile, STEPWISE_DATA_DIR: dir },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let log = '';
    child.stderr!.on('data', (chunk: Buffer) => (log += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const runs = () => {
      let text = '';
      try {
        text = readFileSync(runsFile, 'utf8');
      } catch {
        // nothing launched yet
      }
      return text
        .split('\n')
        .filter(Boolean)
        .map((line) => ({ name: line.split(' ')[0], pid: Number(line.split(' ')[1]) }));
    };
    const waitFor = async (what: () => boolean, describe: string) => {
      for (const deadline = Date.now() + 20_000; !what();) {
        if (Date.now() > deadline) throw new Error(`${describe} did not happen; the script said:\n${log}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };
    return { child, log: () => log, runs, exited, waitFor };
  }

  it('starts a worker that died again, waiting longer each time, keeps the API up, and Ctrl-C stops both', async () => {
    harness = run(`${LAUNCH}\nkeep_running\nend_supervision\n`);
    const { log, runs, waitFor, child, exited } = harness;
    const workers = () => runs().filter((launched) => launched.name === 'worker');
    await waitFor(() => workers().length >= 3, 'a third worker');

    expect(log()).toMatch(/the worker exited \(status 134\) after \d+s: starting it again in 1s\n/);
    expect(log()).toMatch(/the worker exited \(status 134\) after \d+s: starting it again in 2s\n/);
    expect(log()).toMatch(/started the worker again \(pid \d+\)/);
    const apis = runs().filter((launched) => launched.name === 'api');
    expect(apis).toHaveLength(1);
    expect(alive(apis[0].pid)).toBe(true);

    child.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(runs().filter(({ pid }) => alive(pid))).toEqual([]);
    expect(log()).not.toContain('the api exited');
  });

  it("stops the API when the worker dies during start-up, with the worker's exit status", async () => {
    // start.sh's readiness wait, over a check that never passes: the worker's exit ends it.
    harness = run(
      `${LAUNCH}\nhealth=0\nwait_until 20 "the API" "$(supervised_pids)" false || health=$?\n(( health == 2 )) && { start_failed || end_supervision $?; }\nexit 99\n`,
    );
    const { log, runs, exited } = harness;

    expect(await exited).toBe(134);
    expect(log()).toContain('the worker exited (status 134) during start-up: stopping the others');
    expect(
      runs()
        .map(({ name }) => name)
        .sort(),
    ).toEqual(['api', 'worker']);
    expect(runs().filter(({ pid }) => alive(pid))).toEqual([]);
  });
});
