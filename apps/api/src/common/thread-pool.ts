// A few worker threads for CPU work a user's request causes, so that one request's work never holds the
// API's event loop (and with it every other tenant's requests and /health/live) for its whole length.
import { Worker, type WorkerOptions } from 'node:worker_threads';

export interface ThreadPoolOptions {
  /** Threads working at once. */
  size: number;
  /** Tasks waiting for a thread past which a new one is refused at once (ThreadPoolFull). */
  maxQueued: number;
  /** A task still running after this long has its thread terminated (ThreadPoolTimeout) and replaced. */
  timeLimitMs: number;
}

export class ThreadPoolFull extends Error {}
export class ThreadPoolTimeout extends Error {}

interface Task {
  input: unknown;
  resolve: (output: unknown) => void;
  reject: (error: Error) => void;
}

interface Slot {
  worker: Worker;
  task: Task | null;
  timer: NodeJS.Timeout | null;
}

/** Runs `script` (a worker that answers each message with one message) on a bounded pool of threads. */
export class ThreadPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Task[] = [];
  private closed = false;

  constructor(
    private readonly script: string | URL,
    private readonly options: ThreadPoolOptions,
    private readonly workerOptions: WorkerOptions = {},
  ) {}

  run<T>(input: unknown): Promise<T> {
    if (this.closed) return Promise.reject(new Error('The thread pool is closed'));
    return new Promise<T>((resolve, reject) => {
      const task: Task = { input, resolve: resolve as (output: unknown) => void, reject };
      const idle = this.idleSlot();
      if (idle) return this.start(idle, task);
      if (this.queue.length >= this.options.maxQueued) return reject(new ThreadPoolFull(`${this.queue.length} tasks are waiting already`));
      this.queue.push(task);
    });
  }

  /** Tasks waiting for a thread. */
  get queued(): number {
    return this.queue.length;
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const task of this.queue.splice(0)) task.reject(new Error('The thread pool is closed'));
    await Promise.all(this.slots.splice(0).map((slot) => this.stop(slot)));
  }

  // Threads start when first needed and stay: starting one costs tens of milliseconds.
  private idleSlot(): Slot | null {
    const idle = this.slots.find((slot) => !slot.task);
    if (idle) return idle;
    if (this.slots.length >= this.options.size) return null;
    const slot = this.spawn();
    this.slots.push(slot);
    return slot;
  }

  private spawn(): Slot {
    const slot: Slot = { worker: new Worker(this.script, this.workerOptions), task: null, timer: null };
    slot.worker.on('message', (output: unknown) => this.finish(slot, (task) => task.resolve(output)));
    slot.worker.on('error', (error: Error) => this.finish(slot, (task) => task.reject(error)));
    slot.worker.on('exit', (code) => {
      if (this.closed || !this.slots.includes(slot)) return;
      this.replace(slot);
      this.finish(slot, (task) => task.reject(new Error(`The worker thread exited (${code})`)));
    });
    // An idle pool does not keep the process alive.
    slot.worker.unref();
    return slot;
  }

  private start(slot: Slot, task: Task): void {
    slot.task = task;
    slot.worker.ref();
    slot.timer = setTimeout(() => {
      this.replace(slot);
      this.finish(slot, (late) => late.reject(new ThreadPoolTimeout(`The task ran past ${this.options.timeLimitMs} ms`)));
    }, this.options.timeLimitMs);
    slot.worker.postMessage(task.input);
  }

  /** Settles the slot's task (once) and hands its thread, or its replacement, the next one waiting. */
  private finish(slot: Slot, settle: (task: Task) => void): void {
    const task = slot.task;
    if (!task) return;
    if (slot.timer) clearTimeout(slot.timer);
    slot.task = null;
    slot.timer = null;
    slot.worker.unref();
    settle(task);
    const next = this.queue.shift();
    if (!next) return;
    const free = this.idleSlot();
    if (free) this.start(free, next);
    else this.queue.unshift(next);
  }

  /** A thread that ran too long or died is thrown away; its task is settled by the caller. */
  private replace(slot: Slot): void {
    const at = this.slots.indexOf(slot);
    if (at >= 0) this.slots.splice(at, 1);
    slot.worker.removeAllListeners('exit');
    void this.stop(slot);
  }

  private async stop(slot: Slot): Promise<void> {
    if (slot.timer) clearTimeout(slot.timer);
    await slot.worker.terminate();
  }
}
