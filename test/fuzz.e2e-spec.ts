// Malformed requests on every route the API serves: bad JSON, wrong types, absurd numbers, odd ids,
// repeated parameters, deep nesting, huge strings, another user's resources. Each must be a coded 4xx
// (never a 500, never a 2xx), and nothing may be written.
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { type ApiClient, type Reply } from './support/api';
import { llmStep } from './support/factories';
import { useStack, type Stack } from './support/stack';

type Route = { method: string; path: string };

const ODD_IDS = [`urn:uuid:${randomUUID()}`, `${randomUUID()}x`, "1' OR '1'='1", '日本語', '%2e%2e%2fetc', '0'.repeat(300)];
const PAGING = ['limit=1&limit=2', 'limit=1e308', 'limit=0', 'offset=-1', 'cursor=%00%01', 'cursor=bm90LWEtY3Vyc29y'];
/** The query parameters each list takes, each given wrong. */
const QUERIES: Record<string, string[]> = {
  '/workflows': PAGING,
  '/assistant/sessions': PAGING,
  '/assistant/sessions/:uuid/events': ['after=x', 'after=-1', 'after=1e308'],
  '/runs': [
    ...PAGING,
    'status=a&status=b',
    'status=bogus',
    'workflow_uuid=urn:uuid:x',
    'workflow_uuid=a&workflow_uuid=b',
    `schedule_id=${'s'.repeat(2000)}`,
    'schedule_id=a&schedule_id=b',
  ],
};

const BAD_BODIES: [string, string][] = [
  ['bad JSON', '{"name": '],
  ['an array', '[1, 2]'],
  ['a string', '"text"'],
  ['a number', '1e308'],
  ['deep nesting', `{"x": ${'['.repeat(50_000)}${']'.repeat(50_000)}}`],
  [
    'wrong types',
    JSON.stringify({
      name: 42,
      steps: 'x',
      trigger_output: { a: 1 },
      limit: -1,
      from_step_uuid: 7,
      input: { a: 1 },
      content: 9,
      schedule_type: 3,
      dry_run: 'yes',
      endpoint_url: 5,
      start: 1,
      cron_expression: [],
    }),
  ],
  [
    'absurd numbers',
    JSON.stringify({
      limit: 1e308,
      max_attempts: -1,
      interval_seconds: 1e300,
      timeout_ms: Number.MAX_SAFE_INTEGER * 10,
      position: -5,
      wait_seconds: 1e9,
    }),
  ],
  ['a huge string', JSON.stringify({ name: 'x'.repeat(600_000), content: 'y'.repeat(10) })],
];

describe('Fuzzing every route', () => {
  let stack: Stack;
  useStack((started) => (stack = started));

  function routes(): Route[] {
    const express = stack.api.app.getHttpAdapter().getInstance() as {
      router: { stack: { route?: { path: string | RegExp; methods: Record<string, boolean> } }[] };
    };
    // The API's routes are strings; the pages' (/runs/{uuid}) may be patterns, and are no part of the API.
    const apiPath = (layer: { route?: { path: string | RegExp } }) => (typeof layer.route?.path === 'string' ? layer.route.path : '');
    return express.router.stack
      .filter((layer) => apiPath(layer).startsWith('/api/v1/') && !apiPath(layer).startsWith('/api/v1/health'))
      .flatMap(({ route }) =>
        Object.keys(route!.methods).map((method) => ({
          method: method.toUpperCase(),
          path: (route!.path as string).replace('/api/v1', ''),
        })),
      );
  }

  const fill = (path: string, id: string) => path.replace(/:(\w+)/g, () => encodeURIComponent(id));

  async function counts(userId: string): Promise<number[]> {
    const db = stack.api.app.get(DataSource);
    const tables = ['workflows', 'workflow_runs', 'tools', 'schedules', 'trigger_events', 'workflow_agent_states', 'mcp_servers'];
    return Promise.all(
      tables.map(async (table) => Number((await db.query(`SELECT COUNT(*) AS n FROM ${table} WHERE user_id = ?`, [userId]))[0].n)),
    );
  }

  it('answers at least 150 malformed requests with coded 4xx errors and writes nothing', async () => {
    const [owner, intruder] = [stack.user, await stack.api.newUser()];
    // The owner's resources, which the intruder aims at.
    const workflow = await stack.createWorkflow([llmStep()], { trigger: { type: 'webhook', filter_rules: {} } });
    const tool = (
      await owner.post('/tools', {
        name: `t_${randomUUID().slice(0, 6)}`,
        description: 'd',
        parameters: { type: 'object' },
        endpoint_url: 'http://127.0.0.1:9/x',
      })
    ).body;
    const mcpServer = (
      await owner.post('/mcp-servers', {
        name: `m_${randomUUID().slice(0, 6)}`,
        transport: 'streamable_http',
        url: 'http://127.0.0.1:9/mcp',
        headers: { Authorization: 'Bearer x' },
      })
    ).body;
    const session = (await owner.post('/assistant/sessions', { mode: 'create' })).body;
    const before = {
      owner: await counts(owner.userId),
      intruder: await counts(intruder.userId),
      updated: (await owner.get(`/workflows/${workflow.uuid}`)).body.updated_at,
    };
    const theirs = [workflow.uuid, workflow.steps[0].uuid, workflow.trigger!.uuid, tool.uuid, session.uuid, mcpServer.uuid];

    const replies: { what: string; reply: Reply }[] = [];
    const send = async (what: string, client: ApiClient, method: string, path: string, body?: string) =>
      replies.push({ what: `${what}: ${method} ${path.slice(0, 80)}`, reply: await client.call(method, path, body) });

    for (const { method, path } of routes()) {
      const hasBody = ['POST', 'PUT', 'PATCH'].includes(method);
      const id = path.includes(':') ? randomUUID() : '';
      if (hasBody) for (const [name, body] of BAD_BODIES) await send(name, intruder, method, fill(path, id), body);
      if (path.includes(':'))
        for (const odd of ODD_IDS) await send('odd id', intruder, method, fill(path, odd), hasBody ? '{}' : undefined);
      if (path.includes(':'))
        for (const owned of theirs)
          await send(
            "another user's resource",
            intruder,
            method,
            fill(path, owned),
            hasBody ? JSON.stringify({ name: 'mine now', trigger_output: {} }) : undefined,
          );
      for (const query of QUERIES[path] ?? []) await send('bad query', intruder, method, `${fill(path, workflow.uuid)}?${query}`);
    }

    const wrong = replies.filter(({ reply }) => reply.status < 400 || reply.status >= 500 || typeof reply.body?.code !== 'string');
    expect(replies.length).toBeGreaterThanOrEqual(150);
    expect(wrong.map(({ what, reply }) => `${what} -> ${reply.status} ${JSON.stringify(reply.body).slice(0, 120)}`)).toEqual([]);
    expect(await counts(intruder.userId)).toEqual(before.intruder);
    expect(await counts(owner.userId)).toEqual(before.owner);
    expect((await owner.get(`/workflows/${workflow.uuid}`)).body.updated_at).toBe(before.updated);
    console.log(`fuzz: ${replies.length} malformed requests over ${routes().length} routes, every one a coded 4xx`);
  });
});
