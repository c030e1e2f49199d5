// node dist/bench/hostile-io.js [--bytes N] [--capped-only]: what one hostile tool answer costs the worker (#26). A tool
// answers N bytes (200 MiB by default) generated lazily; each case runs in a child process of its own
// (its peak RSS is the process's, nothing else's) that reads it the way the worker does: a registered
// HTTP tool, an MCP server over streamable HTTP (SSE), an MCP server over stdio. Each case is measured
// with the cap (TOOL_ANSWER_MAX_BYTES, 1 MiB) and as before the cap (HTTP tool: cut at 256 KiB; MCP over
// HTTP: the SDK reads the whole answer; stdio: the SDK's own 10 MB read buffer, its failure retryable),
// and the uncapped MCP read once more under the worker's 256 MB heap bound. --capped-only skips the
// cases without a cap (their memory grows with N: keep N small for them).
import { fork } from 'node:child_process';
import { parseArgs } from 'node:util';
import { HostileServer } from '../test/support/hostile-server';
import { STDIO_SERVER } from '../test/support/hostile-stdio-server';

interface Outcome {
  name: string;
  ms: number;
  rss_before_mb: number;
  rss_peak_mb: number;
  rss_delta_mb: number;
  result: string;
  server_wrote_mb?: number;
  exit?: string;
}

const MiB = 1024 * 1024;
const mb = (bytes: number) => Math.round((bytes / MiB) * 10) / 10;

/** In the child: one read, measured. */
async function child(kind: string, origin: string, bytes: number, cap: number | null): Promise<void> {
  const { EgressPolicy, HttpToolTransport, McpClientPool, fetchText } = await import('@app/providers');
  const fetch = new EgressPolicy(['127.0.0.1/32']).fetch;
  const pool = new McpClientPool({ fetch, stdioAllowed: true, answerMaxBytes: cap ?? Number.MAX_SAFE_INTEGER });
  const http = {
    uuid: 'h',
    name: 'hostile',
    timeout_ms: 600_000,
    transport: 'streamable_http' as const,
    url: `${origin}/mcp`,
    headers: {},
  };
  // stdio before the cap: the SDK's default read buffer (10 MB); with it, the cap.
  const stdio = {
    uuid: 's',
    name: 'local',
    timeout_ms: 600_000,
    transport: 'stdio' as const,
    command: process.execPath,
    args: ['-e', STDIO_SERVER],
    env: {},
  };
  const stdioPool = cap === null ? new McpClientPool({ fetch, stdioAllowed: true, answerMaxBytes: 10 * 1000 * 1000 }) : pool;
  const reads: Record<string, () => Promise<unknown>> = {
    'http-tool': () =>
      cap === null
        ? fetchText(
            `${origin}/huge?json=1&bytes=${bytes}`,
            { method: 'POST' },
            { timeoutMs: 600_000, what: 'tool dump', fetch, overMax: 'cut' },
          ).then((answer) => `cut at ${answer.text.length} characters`)
        : new HttpToolTransport(fetch, { answerMaxBytes: cap }).call(
            {
              name: 'dump',
              description: '',
              parameters: {},
              transport: 'http',
              endpoint_url: `${origin}/huge?json=1&bytes=${bytes}`,
              timeout_ms: 600_000,
            },
            {},
          ),
    'mcp-http': () => pool.callTool(http, 'dump', { bytes }).then((answer) => `answered ${JSON.stringify(answer).length} characters`),
    'mcp-stdio': () =>
      stdioPool.callTool(stdio, 'dump', { bytes }).then((answer) => `answered ${JSON.stringify(answer).length} characters`),
  };
  // Warm: the connection opened and a small answer read, so the figure is the large answer's alone.
  if (kind !== 'http-tool')
    await (kind === 'mcp-http' ? pool.callTool(http, 'dump', { bytes: 10 }) : stdioPool.callTool(stdio, 'dump', { bytes: 10 }));
  global.gc?.();
  const before = process.memoryUsage().rss;
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
  const started = performance.now();
  const result = await reads[kind]().then(
    (answer) => String(answer).slice(0, 120),
    (error: Error) => `${(error as { kind?: string }).kind ?? error.name}: ${error.message.slice(0, 100)}`,
  );
  const ms = performance.now() - started;
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage().rss, process.resourceUsage().maxRSS * 1024);
  process.send!({ ms: Math.round(ms), rss_before_mb: mb(before), rss_peak_mb: mb(peak), rss_delta_mb: mb(peak - before), result });
  await pool.close();
  await stdioPool.close();
  process.exit(0);
}

async function measure(
  name: string,
  kind: string,
  origin: string,
  bytes: number,
  cap: number | null,
  execArgv: string[] = [],
): Promise<Outcome> {
  const worker = fork(
    __filename,
    ['--child', kind, '--origin', origin, '--bytes', String(bytes), ...(cap === null ? [] : ['--cap', String(cap)])],
    { execArgv: ['--expose-gc', ...execArgv], stdio: ['ignore', 'ignore', 'pipe', 'ipc'] },
  );
  let stderr = '';
  worker.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const started = performance.now();
  return new Promise((resolve) => {
    let outcome: Omit<Outcome, 'name'> | null = null;
    worker.on('message', (message: Omit<Outcome, 'name'>) => (outcome = message));
    worker.on('exit', (code, signal) => {
      const died =
        code !== 0 ? (/heap out of memory/i.test(stderr) ? 'died: JavaScript heap out of memory' : `died: ${signal ?? code}`) : undefined;
      resolve({
        name,
        ...(outcome ?? { ms: Math.round(performance.now() - started), rss_before_mb: 0, rss_peak_mb: 0, rss_delta_mb: 0, result: '-' }),
        ...(died ? { exit: died } : {}),
      });
    });
  });
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      child: { type: 'string' },
      origin: { type: 'string' },
      bytes: { type: 'string' },
      cap: { type: 'string' },
      'capped-only': { type: 'boolean' },
    },
  });
  const bytes = Number(values.bytes ?? 200 * MiB);
  if (values.child) return child(values.child, values.origin!, bytes, values.cap === undefined ? null : Number(values.cap));
  const hostile = await HostileServer.start();
  const cap = MiB;
  const cases: [string, string, number | null, string[]?][] = [
    ['HTTP tool, capped (1 MiB, fails)', 'http-tool', cap],
    ['HTTP tool, before (cut at 256 KiB)', 'http-tool', null],
    ['MCP over HTTP (SSE), capped', 'mcp-http', cap],
    ['MCP over HTTP (SSE), before (no cap)', 'mcp-http', null],
    ['MCP over HTTP, before, 256 MB heap', 'mcp-http', null, ['--max-old-space-size=256']],
    ['MCP over stdio, capped', 'mcp-stdio', cap],
    ['MCP over stdio, the SDK 10 MB buffer (before: then a retryable "Connection closed")', 'mcp-stdio', null],
  ];
  const outcomes: Outcome[] = [];
  for (const [name, kind, limit, execArgv] of cases.filter(([, , limit]) => limit !== null || !values['capped-only'])) {
    const outcome = await measure(name, kind, hostile.origin, bytes, limit, execArgv);
    const path = kind === 'http-tool' ? '/huge' : kind === 'mcp-http' ? '/mcp' : null;
    if (path) outcome.server_wrote_mb = mb((await hostile.ended(path)).written);
    outcomes.push(outcome);
    console.log(JSON.stringify(outcome));
  }
  console.table(outcomes);
  await hostile.close();
}

void main();
