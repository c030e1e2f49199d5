// Starts the real API on an ephemeral port against the test database, and talks to it over real HTTP.
import { randomUUID } from 'node:crypto';
import type { INestApplication } from '@nestjs/common';
import { loadConfig, type AppConfig } from '../../libs/config/src';
import { ApiKeyService } from '../../apps/api/src/auth/api-key.service';
import { type ApiAppOptions, createApiApp } from '../../apps/api/src/create-app';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export interface Reply<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

export class ApiClient {
  constructor(
    readonly baseUrl: string,
    readonly key: string | null,
    readonly userId: string,
  ) {}

  async call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply> {
    const response = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers: {
        ...(this.key ? { authorization: `Bearer ${this.key}` } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : null, headers: response.headers };
  }

  get = (path: string) => this.call('GET', path);
  post = (path: string, body?: unknown, headers?: Record<string, string>) => this.call('POST', path, body ?? {}, headers);
  put = (path: string, body: unknown) => this.call('PUT', path, body);
  patch = (path: string, body: unknown) => this.call('PATCH', path, body);
  delete = (path: string) => this.call('DELETE', path);
}

export interface TestApi {
  app: INestApplication;
  config: AppConfig;
  baseUrl: string;
  /** A client for a brand-new user with its own key: specs never see each other's data. */
  newUser(): Promise<ApiClient>;
  anonymous(): ApiClient;
  close(): Promise<void>;
}

export function testConfig(
  overrides: Partial<{
    taskQueue: string;
    modelBaseUrl: string;
    bodyLimitBytes: number;
    temporalAddress: string;
    loopIterationsPerExecution: number;
  }> = {},
): AppConfig {
  const base = loadConfig();
  return {
    ...base,
    temporal: {
      ...base.temporal,
      address: overrides.temporalAddress ?? base.temporal.address,
      taskQueue: overrides.taskQueue ?? `test-${randomUUID()}`,
      heartbeatTimeoutSeconds: 3,
      conversationTurnsPerExecution: 2,
      loopIterationsPerExecution: overrides.loopIterationsPerExecution ?? base.temporal.loopIterationsPerExecution,
    },
    // Every spec's client is 127.0.0.1: a cap on its connections would refuse their bursts.
    api: { ...base.api, port: 0, bodyLimitBytes: overrides.bodyLimitBytes ?? base.api.bodyLimitBytes, maxConnectionsPerAddress: null },
    // Only the fakes: a key in the developer's environment must not send specs to a real provider.
    providers: {
      default: 'openai',
      openai: { ...base.providers.openai, baseUrl: overrides.modelBaseUrl ?? base.providers.openai.baseUrl },
      anthropic: null,
      openrouter: null,
    },
    log: { level: 'warn', format: 'json' },
    metrics: { host: '127.0.0.1', apiPort: 0, workerPort: 0 },
    tracing: { otlpEndpoint: null },
    // The specs' tool servers and notification receivers listen on loopback.
    egress: { allow: ['127.0.0.0/8', '::1', 'localhost'] },
    // Specs fire hundreds of requests a second; the quota spec sets its own.
    // Specs call the reconciler themselves.
    reconciler: { intervalSeconds: null, afterSeconds: 60 },
    quotas: {
      ...base.quotas,
      requestsPerMinute: 1_000_000,
      requestBurst: 100_000,
      addressRequestsPerMinute: 1_000_000,
      addressRequestBurst: 100_000,
      scheduleMinIntervalSeconds: 1,
    },
    // Specs script the model call by call: a summary request of every save would get in their way.
    summaries: { ...base.summaries, enabled: false },
  };
}

export async function startApi(config: AppConfig = testConfig(), options: ApiAppOptions = {}): Promise<TestApi> {
  const app = await createApiApp(config, options);
  await app.listen(0, '127.0.0.1');
  const address = app.getHttpServer().address() as { port: number };
  const baseUrl = `http://127.0.0.1:${address.port}/api/v1`;
  const keys = app.get(ApiKeyService);
  return {
    app,
    config,
    baseUrl,
    async newUser() {
      const userId = `user-${randomUUID()}`;
      const { key } = await keys.create(userId, 'test');
      return new ApiClient(baseUrl, key, userId);
    },
    anonymous: () => new ApiClient(baseUrl, null, 'anonymous'),
    close: () => app.close(),
  };
}
