// A worker thread doing a user's CPU work (a webhook body's parse and rules) runs niced, so that on cores
// shared with the API's event loop (and the worker, MySQL, Temporal) the loop wins them: /health/live and
// every other tenant's requests come first while a 0.8 MB body is checked. Linux keeps a nice value per
// thread; elsewhere, or if the kernel refuses, the thread runs at the process's priority.
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';

/** Nice value of the threads that check webhook deliveries (0 is the default, 19 the lowest priority). */
export const CHECK_THREAD_NICE = 10;

/** Lowers the calling thread's priority (not the process's); answers whether it could. */
export function niceThisThread(nice = CHECK_THREAD_NICE): boolean {
  try {
    // /proc/thread-self is `<pid>/task/<tid>`: the kernel's id of this thread, which setpriority takes.
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    setPriority(tid, nice);
    return true;
  } catch {
    return false;
  }
}
