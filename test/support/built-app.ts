// A built app (dist/) as a child process, the API's or the worker's: started with the spec's stack's
// settings, waited for until it is ready, and stopped by a signal.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { AppConfig } from '../../libs/config/src';

/** The database, Temporal, model provider and egress of `config` (a spec's stack) as a child's environment. */
export function stackEnv(config: AppConfig): Record<string, string> {
  return {
    DATABASE_URL: config.databaseUrl,
    TEMPORAL_ADDRESS: config.temporal.address,
    TEMPORAL_NAMESPACE: config.temporal.namespace,
    TEMPORAL_TASK_QUEUE: config.temporal.taskQueue,
    OPENAI_BASE_URL: config.providers.openai.baseUrl,
    OPENAI_API_KEY: 'test-key',
    EGRESS_ALLOW: config.egress.allow.join(','),
  };
}

/**
 * A built app (dist/) as a child process with the environment given on top of this one's; resolves once it
 * prints `ready` (or `ready()` holds, asked every 100 ms), and gives what it printed so far (and goes on collecting).
 * `nodeArgs` go to node before the entry (a bench's --cpu-prof).
 */
export async function startBuilt(
  entry: string,
  env: Record<string, string>,
  ready: string | (() => Promise<boolean>),
  timeoutMs: number,
  nodeArgs: string[] = [],
): Promise<{ child: ChildProcess; printed: { text: string } }> {
  if (!existsSync(entry)) throw new Error(`${entry} is missing: run npm run build first (npm test does)`);
  const child = spawn(process.execPath, [...nodeArgs, entry], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const printed = { text: '' };
  child.stdout!.on('data', (chunk: Buffer) => (printed.text += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (printed.text += chunk.toString()));
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code) => reject(new Error(`${entry} exited with ${code} before it started:\n${printed.text}`))),
  );
  const isReady = typeof ready === 'string' ? async () => printed.text.includes(ready) : ready;
  const started = (async () => {
    for (const deadline = Date.now() + timeoutMs; !(await isReady().catch(() => false));) {
      if (Date.now() > deadline) throw new Error(`${entry} did not start within ${timeoutMs} ms:\n${printed.text}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  try {
    await Promise.race([started, exited]);
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  exited.catch(() => undefined);
  return { child, printed };
}

/** Sends `signal` unless the child has ended; resolves once it has. */
export async function stopChild(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill(signal);
  await exited;
}
