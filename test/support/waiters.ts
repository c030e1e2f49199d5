// Conditions a test waits on, checked whenever the fake they belong to sees something happen: no sleeps.

interface Waiter {
  done: () => boolean;
  resolve: () => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

export class Waiters {
  private pending: Waiter[] = [];

  constructor(private readonly label: string) {}

  /** Resolves when `condition` holds (checked at each notify), rejects after `timeoutMs`. */
  until(condition: () => boolean, timeoutMs: number, describe: () => string): Promise<void> {
    if (condition()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        done: condition,
        resolve,
        reject,
        timer: setTimeout(() => {
          this.pending = this.pending.filter((other) => other !== waiter);
          reject(new Error(`${this.label}: ${describe()} after ${timeoutMs} ms`));
        }, timeoutMs),
      };
      this.pending.push(waiter);
    });
  }

  notify(): void {
    this.pending = this.pending.filter((waiter) => {
      if (!waiter.done()) return true;
      clearTimeout(waiter.timer);
      waiter.resolve();
      return false;
    });
  }

  rejectAll(): void {
    for (const waiter of this.pending) {
      clearTimeout(waiter.timer);
      waiter.reject(new Error(`${this.label}: closed`));
    }
    this.pending = [];
  }
}
