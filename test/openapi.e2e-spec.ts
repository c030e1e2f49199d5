// The OpenAPI document covers every route Nest serves (its bodies, answers and coded errors), and a typed
// client generated from it compiles: what a team integrating stepwise builds on.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import ts from 'typescript';
import { toOpenApi } from '../apps/api/src/common/openapi';
import { REQUEST_BODIES } from '../libs/domain/src';
import { startApi, type TestApi } from './support/api';

type Content = Record<string, { schema?: { $ref?: string } }>;
type Operation = {
  requestBody?: { required?: boolean; content?: Content };
  responses: Record<string, { content?: Content }>;
  security?: unknown[];
};
type Document = { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, unknown> } };

/** Actions whose request carries no body. */
const BODILESS = new Set([
  'POST /api/v1/runs/{uuid}/cancel',
  'POST /api/v1/evaluations/{uuid}/cancel',
  'POST /api/v1/triggers/{triggerUuid}/rotate-secret',
  'POST /api/v1/schedules/{id}/trigger',
  'POST /api/v1/workflows/{uuid}/rotate-notify-secret',
]);
const PUBLIC = /^\/api\/v1\/(health|hooks)\b/;
/** Routes whose body no one request body of the domain checks, and what does: each a debt, paid by a body in REQUEST_BODIES. */
const CHECKED_OTHERWISE: Record<string, string> = {
  'POST /api/v1/workflows': 'the definition parser (parseWorkflowInput), part by part: STEP_SCHEMAS, GRAPH_SCHEMA, TRIGGER_SCHEMAS',
  'POST /api/v1/workflows/import': 'the definition parser, as a create or a replace',
  'PATCH /api/v1/workflows/{uuid}': 'WORKFLOW_PATCH_SCHEMA, documented by hand (WorkflowPatch)',
  'PUT /api/v1/workflows/{uuid}/graph': 'GRAPH_SCHEMA, then the graph rules (the component is toOpenApi(GRAPH_SCHEMA))',
  'POST /api/v1/workflows/{uuid}/steps': "the step's STEP_SCHEMAS entry, then the chain rules",
  'PUT /api/v1/workflows/{uuid}/steps/order': 'checkPermutation',
  'PATCH /api/v1/steps/{stepUuid}': 'the merged step, checked whole with its chain',
  'PUT /api/v1/workflows/{uuid}/trigger': 'TRIGGER_SCHEMAS',
  'PATCH /api/v1/triggers/{triggerUuid}': 'the merged trigger, checked whole',
  'POST /api/v1/hooks/{triggerUuid}': "any JSON: the trigger's filter_rules read it",
  'POST /api/v1/mcp/invoke': "the named tool's own inputSchema",
  'POST /api/v1/temporal-codec/decode': "Temporal's codec-server protocol",
  'POST /api/v1/temporal-codec/encode': "Temporal's codec-server protocol",
  'POST /api/v1/temporal-codec/session': 'keyCookieMaxAge',
};

describe('OpenAPI document', () => {
  let api: TestApi;
  let document: Document;

  beforeAll(async () => {
    api = await startApi();
    document = (await (await fetch(api.baseUrl.replace('/api/v1', '/api/docs-json'))).json()) as Document;
  });
  afterAll(() => api?.close());

  /** Every route Express serves under /api/v1, as `METHOD /path/{param}`. */
  function servedRoutes(): string[] {
    const express = api.app.getHttpAdapter().getInstance() as {
      router: { stack: { route?: { path: string; methods: Record<string, boolean> } }[] };
    };
    return (
      express.router.stack
        // The pages' routes may be patterns (/runs/{uuid} is a RegExp): only the API's, which are strings, are documented.
        .filter((layer) => typeof layer.route?.path === 'string' && layer.route.path.startsWith('/api/v1/'))
        .flatMap(({ route }) =>
          Object.keys(route!.methods).map((method) => `${method.toUpperCase()} ${route!.path.replace(/:(\w+)/g, '{$1}')}`),
        )
    );
  }

  it('documents every route with its body, answers, coded errors and security', () => {
    const routes = servedRoutes();
    expect(routes.length).toBeGreaterThan(40);
    const problems = routes.flatMap((route) => {
      const [method, routePath] = route.split(' ');
      const operation = document.paths[routePath]?.[method.toLowerCase()];
      if (!operation) return [`${route}: not in the document`];
      const statuses = Object.keys(operation.responses);
      return [
        ...(statuses.some((status) => /^2/.test(status)) ? [] : [`${route}: no success answer`]),
        ...statuses
          .filter((status) => /^2/.test(status) && status !== '204' && !operation.responses[status].content)
          .map((status) => `${route}: its ${status} answer has no schema`),
        ...statuses
          .filter(
            (status) =>
              /^2/.test(status) && operation.responses[status].content?.['application/json']?.schema?.$ref === '#/components/schemas/Error',
          )
          .map((status) => `${route}: its ${status} answer is an Error`),
        ...statuses
          .filter(
            (status) =>
              /^[45]/.test(status) &&
              !/^\/api\/v1\/health/.test(routePath) &&
              operation.responses[status].content?.['application/json']?.schema?.$ref !== '#/components/schemas/Error',
          )
          .map((status) => `${route}: ${status} is not a coded Error`),
        ...(!PUBLIC.test(routePath) && !statuses.includes('401') ? [`${route}: no 401`] : []),
        ...(['POST', 'PUT', 'PATCH'].includes(method) && !BODILESS.has(route) && !operation.requestBody
          ? [`${route}: no request body`]
          : []),
        ...(!PUBLIC.test(routePath) && !operation.security?.length ? [`${route}: no security scheme`] : []),
      ];
    });
    expect(problems).toEqual([]);
  });

  it("documents each body as the schema its route's validator checks", () => {
    const bodies = new Map(REQUEST_BODIES.map((body) => [body.name, body]));
    const shown: Record<string, unknown> = {};
    const validated: Record<string, unknown> = {};
    const problems = servedRoutes().flatMap((route) => {
      const [method, routePath] = route.split(' ');
      const requestBody = document.paths[routePath]?.[method.toLowerCase()]?.requestBody;
      if (!requestBody) return [];
      const name = requestBody.content?.['application/json']?.schema?.$ref?.replace('#/components/schemas/', '');
      const body = name === undefined ? undefined : bodies.get(name);
      if (!body)
        return route in CHECKED_OTHERWISE ? [] : [`${route}: its body (${name ?? 'inline'}) is no request body the domain validates`];
      shown[`${route} ${body.name}`] = { schema: document.components.schemas[body.name], required: requestBody.required ?? false };
      validated[`${route} ${body.name}`] = { schema: toOpenApi(body.schema), required: body.required };
      return [];
    });
    expect(problems).toEqual([]);
    expect(shown).toEqual(validated);
    expect(REQUEST_BODIES.map((body) => body.name).filter((name) => !Object.keys(shown).some((key) => key.endsWith(` ${name}`)))).toEqual(
      [],
    );
  });

  it('generates a typed client that compiles', () => {
    const folder = mkdtempSync(path.join(os.tmpdir(), 'stepwise-client-'));
    // The generator's own CLI (an ES module: jest's CommonJS runtime cannot load it here).
    writeFileSync(path.join(folder, 'openapi.json'), JSON.stringify(document));
    const cli = path.resolve(__dirname, '../node_modules/openapi-typescript/bin/cli.js');
    const generated = spawnSync(process.execPath, [cli, path.join(folder, 'openapi.json'), '-o', path.join(folder, 'api.ts')], {
      encoding: 'utf8',
    });
    expect(generated.status).toBe(0);
    writeFileSync(
      path.join(folder, 'client.ts'),
      `import type { components, paths } from './api';
type Run = components['schemas']['Run'];
type NewRun = paths['/api/v1/workflows/{uuid}/runs']['post']['requestBody'] extends { content: { 'application/json': infer B } } | undefined ? B : never;
export async function startRun(base: string, key: string, workflowUuid: string, body: NewRun): Promise<Run> {
  const answer = await fetch(\`\${base}/workflows/\${workflowUuid}/runs\`, { method: 'POST', headers: { authorization: \`Bearer \${key}\`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (!answer.ok) throw new Error(((await answer.json()) as components['schemas']['Error']).code);
  return (await answer.json()) as Run;
}
export const finished = (run: Run): boolean => run.status !== 'running' && run.status !== 'awaiting_input';
export const firstTool = (list: components['schemas']['ToolList']): string | undefined => list.items?.[0]?.name;
`,
    );
    const program = ts.createProgram([path.join(folder, 'client.ts')], {
      strict: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.CommonJS,
      lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'],
      types: [],
    });
    const errors = ts.getPreEmitDiagnostics(program).map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
    expect(errors).toEqual([]);
  });
});
