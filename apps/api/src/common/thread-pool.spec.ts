import { ThreadPool, ThreadPoolFull, ThreadPoolTimeout } from './thread-pool';

// Workers as plain JavaScript: `{ spin: ms }` keeps its thread busy that long (forever when -1), else doubles `n`.
const WORKER = `
const { parentPort, threadId } = require('node:worker_threads');
parentPort.on('message', (task) => {
  if (task.spin !== undefined) for (const end = Date.now() + task.spin; task.spin < 0 || Date.now() < end; );
  if (task.crash) process.exit(3);
  parentPort.postMessage({ n: (task.n ?? 0) * 2, thread: threadId });
});
`;

const pools: ThreadPool[] = [];
const poolOf = (size: number, maxQueued: number, timeLimitMs = 5000): ThreadPool => {
  const pool = new ThreadPool(WORKER, { size, maxQueued, timeLimitMs }, { eval: true });
  pools.push(pool);
  return pool;
};
afterEach(async () => Promise.all(pools.splice(0).map((pool) => pool.close())));

describe(ThreadPool.name, () => {
  it('answers each task from a thread, never more threads than its size', async () => {
    const pool = poolOf(2, 10);
    const answers = await Promise.all([1, 2, 3, 4, 5].map((n) => pool.run<{ n: number; thread: number }>({ n, spin: 20 })));
    expect(answers.map((answer) => answer.n)).toEqual([2, 4, 6, 8, 10]);
    expect(new Set(answers.map((answer) => answer.thread)).size).toBe(2);
  });

  it('refuses a task at once when every thread is busy and the queue is full, and takes them again once it drains', async () => {
    const pool = poolOf(1, 2);
    const running = [pool.run({ spin: 200 }), pool.run({ n: 1 }), pool.run({ n: 2 })];
    expect(pool.queued).toBe(2);
    await expect(pool.run({ n: 3 })).rejects.toBeInstanceOf(ThreadPoolFull);
    await Promise.all(running);
    await expect(pool.run({ n: 4 })).resolves.toMatchObject({ n: 8 });
  });

  it('terminates a thread that runs past the time limit, and the tasks waiting behind it run on a new one', async () => {
    const pool = poolOf(1, 5, 300);
    const started = Date.now();
    const stuck = pool.run({ spin: -1 });
    const next = pool.run<{ n: number; thread: number }>({ n: 21 });
    await expect(stuck).rejects.toBeInstanceOf(ThreadPoolTimeout);
    expect(Date.now() - started).toBeLessThan(3000);
    await expect(next).resolves.toMatchObject({ n: 42 });
  });

  it('rejects the task of a thread that died and goes on with a new thread', async () => {
    const pool = poolOf(1, 5);
    await expect(pool.run({ crash: true })).rejects.toThrow(/exited \(3\)/);
    await expect(pool.run({ n: 5 })).resolves.toMatchObject({ n: 10 });
  });
});
