import { randomBytes } from 'node:crypto';
import { ConfigError, loadConfig } from './app-config';

const env = (extra: Record<string, string>) => ({ ENCRYPTION_KEYS: `k1:${randomBytes(32).toString('base64')}`, ...extra });

describe(`${loadConfig.name} TEMPORAL_CODEC_CORS_ORIGINS`, () => {
  it("lets the Web UI's origin call the codec endpoint by default, or the origins given", () => {
    expect(loadConfig(env({})).temporal.codecCorsOrigins).toEqual(['http://127.0.0.1:8233']);
    expect(loadConfig(env({ TEMPORAL_UI_URL: 'https://temporal.example.com/ui/' })).temporal.codecCorsOrigins).toEqual([
      'https://temporal.example.com',
    ]);
    expect(loadConfig(env({ TEMPORAL_CODEC_CORS_ORIGINS: 'https://a.example, http://localhost:8080/' })).temporal.codecCorsOrigins).toEqual(
      ['https://a.example', 'http://localhost:8080'],
    );
  });

  it('refuses what is not an origin, naming the setting', () => {
    expect(() => loadConfig(env({ TEMPORAL_CODEC_CORS_ORIGINS: 'https://a.example/path' }))).toThrow(
      new ConfigError('TEMPORAL_CODEC_CORS_ORIGINS: "https://a.example/path" is not an origin (scheme://host[:port], no path)'),
    );
    expect(() => loadConfig(env({ TEMPORAL_CODEC_CORS_ORIGINS: 'a.example' }))).toThrow(
      /^TEMPORAL_CODEC_CORS_ORIGINS must be a comma-separated list of origins/,
    );
  });
});

describe(`${loadConfig.name} OPENAI_API_KEY`, () => {
  it('is optional: unset, the openai provider has no key (a local server takes none), and start-up goes on', () => {
    expect(loadConfig(env({})).providers.openai.apiKey).toBeNull();
    expect(loadConfig(env({ OPENAI_API_KEY: 'sk-1' })).providers.openai.apiKey).toBe('sk-1');
  });
});

describe(`${loadConfig.name} WORKER_MAX_CACHED_WORKFLOWS`, () => {
  it('keeps 1,000 runs cached by default, whatever the heap limit', () => {
    expect(loadConfig(env({})).worker.maxCachedWorkflows).toBe(1000);
  });

  it('refuses fewer cached runs than workflow-task slots, naming both settings', () => {
    expect(() => loadConfig(env({ WORKER_MAX_CACHED_WORKFLOWS: '50' }))).toThrow(
      new ConfigError(
        'WORKER_MAX_CACHED_WORKFLOWS (50) must be at least WORKER_MAX_CONCURRENT_WORKFLOW_TASKS (100): a task needs its run in the cache',
      ),
    );
    expect(
      loadConfig(env({ WORKER_MAX_CACHED_WORKFLOWS: '50', WORKER_MAX_CONCURRENT_WORKFLOW_TASKS: '50' })).worker.maxCachedWorkflows,
    ).toBe(50);
  });
});

describe(`${loadConfig.name} POISON_ATTEMPTS_LIMIT`, () => {
  it('quarantines a run after 3 workers died on one call by default, and takes no limit below 1', () => {
    expect(loadConfig(env({})).worker.poisonAttemptsLimit).toBe(3);
    expect(loadConfig(env({ POISON_ATTEMPTS_LIMIT: '1' })).worker.poisonAttemptsLimit).toBe(1);
    expect(() => loadConfig(env({ POISON_ATTEMPTS_LIMIT: '0' }))).toThrow(
      new ConfigError('POISON_ATTEMPTS_LIMIT must be a positive integer, got "0"'),
    );
  });
});

describe(`${loadConfig.name} DATABASE_POOL_SIZE and LOOP_FAILED_ERRORS_LISTED`, () => {
  it('bounds a process’s MySQL connections in all at 20 by default, one for each of its two pools at least', () => {
    expect(loadConfig(env({})).databasePoolSize).toBe(20);
    expect(loadConfig(env({ DATABASE_POOL_SIZE: '2' })).databasePoolSize).toBe(2);
    expect(() => loadConfig(env({ DATABASE_POOL_SIZE: '1' }))).toThrow(new ConfigError('DATABASE_POOL_SIZE must be at least 2, got 1'));
  });

  it('starts up to 50 activities of one workflow task at once on its worker by default (eager execution)', () => {
    expect(loadConfig(env({})).worker.maxEagerActivities).toBe(50);
    expect(loadConfig(env({ WORKER_MAX_EAGER_ACTIVITIES: '3' })).worker.maxEagerActivities).toBe(3);
  });

  it('lists the errors of 100 failed items by default, 1000 at most', () => {
    expect(loadConfig(env({ LOOP_FAILED_ERRORS_LISTED: '1000' })).limits.loopFailedErrorsListed).toBe(1000);
    expect(() => loadConfig(env({ LOOP_FAILED_ERRORS_LISTED: '1001' }))).toThrow(
      new ConfigError('LOOP_FAILED_ERRORS_LISTED must be at most 1000, got 1001'),
    );
  });
});

describe(`${loadConfig.name} schedules`, () => {
  it('caps schedules per workflow and per user, and keeps the floor between fires within a day', () => {
    expect(loadConfig(env({})).quotas).toMatchObject({
      scheduleMinIntervalSeconds: 60,
      maxSchedulesPerWorkflow: 10,
      maxSchedulesPerUser: 100,
    });
    expect(loadConfig(env({ SCHEDULES_MAX_PER_WORKFLOW: '3', SCHEDULES_MAX_PER_USER: '7' })).quotas).toMatchObject({
      maxSchedulesPerWorkflow: 3,
      maxSchedulesPerUser: 7,
    });
    expect(() => loadConfig(env({ SCHEDULE_MIN_INTERVAL_SECONDS: '86401' }))).toThrow(
      new ConfigError('SCHEDULE_MIN_INTERVAL_SECONDS must be at most 86400 (a day), got 86401'),
    );
    expect(() => loadConfig(env({ SCHEDULES_MAX_PER_USER: '0' }))).toThrow(/^SCHEDULES_MAX_PER_USER must be a positive integer/);
  });
});

describe(`${loadConfig.name} API_TRUST_PROXY`, () => {
  it('trusts no proxy by default; takes a number of hops, or proxy addresses, CIDRs and the named ranges', () => {
    expect(loadConfig(env({})).api.trustProxy).toBe(false);
    expect(loadConfig(env({ API_TRUST_PROXY: 'off' })).api.trustProxy).toBe(false);
    expect(loadConfig(env({ API_TRUST_PROXY: '2' })).api.trustProxy).toBe(2);
    expect(loadConfig(env({ API_TRUST_PROXY: 'loopback, 10.0.0.0/8,fd00::/8, 192.0.2.1' })).api.trustProxy).toEqual([
      'loopback',
      '10.0.0.0/8',
      'fd00::/8',
      '192.0.2.1',
    ]);
  });

  it('refuses "all", a host name or a bad prefix, naming the setting: any client could then name its own address', () => {
    for (const value of ['true', 'proxy.internal', '10.0.0.0/33', '10.0.0.0/8/1', '0']) {
      expect(() => loadConfig(env({ API_TRUST_PROXY: value }))).toThrow(/^API_TRUST_PROXY must be/);
    }
  });
});

describe(`${loadConfig.name} API_MAX_CONNECTIONS_PER_ADDRESS`, () => {
  it("caps an address at 64 open connections, and not at all behind a proxy (every client has the proxy's address) unless named", () => {
    expect(loadConfig(env({})).api.maxConnectionsPerAddress).toBe(64);
    expect(loadConfig(env({ API_MAX_CONNECTIONS_PER_ADDRESS: '8' })).api.maxConnectionsPerAddress).toBe(8);
    expect(loadConfig(env({ API_MAX_CONNECTIONS_PER_ADDRESS: 'off' })).api.maxConnectionsPerAddress).toBeNull();
    expect(loadConfig(env({ API_TRUST_PROXY: '1' })).api.maxConnectionsPerAddress).toBeNull();
    expect(loadConfig(env({ API_TRUST_PROXY: '1', API_MAX_CONNECTIONS_PER_ADDRESS: '500' })).api.maxConnectionsPerAddress).toBe(500);
    expect(() => loadConfig(env({ API_MAX_CONNECTIONS_PER_ADDRESS: '0' }))).toThrow(/^API_MAX_CONNECTIONS_PER_ADDRESS must be/);
  });
});

describe(`${loadConfig.name} limits`, () => {
  it("keeps the domain's bounds by default, and takes the operator's", () => {
    const defaults = loadConfig(env({}));
    expect(defaults.limits).toEqual({
      expression: { maxNodesVisited: 1_000_000, maxResults: 100_000 },
      schema: {
        depth: 24,
        values: 10_000,
        subschemas: 500,
        enumValues: 1_000,
        patternsPerObject: 100,
        uniqueItemsMaxItems: 500,
        evaluations: 10_000,
        referenceDepth: 64,
        smallestInstanceBytes: 65_536,
      },
      exampleMaxBytes: 262_144,
      loopOutputMaxBytes: 8_388_608,
      loopFailedErrorsListed: 100,
    });
    expect(defaults.assistant).toMatchObject({
      maxToolCallsPerAnswer: 8,
      maxMessages: 200,
      idleTimeoutSeconds: 86_400,
      maxSteps: 50,
      maxToolRounds: 5,
      correctionRounds: 3,
      messageMaxChars: 20_000,
    });
    const set = loadConfig(
      env({
        EXPRESSION_MAX_NODES_VISITED: '5000',
        SCHEMA_SMALLEST_INSTANCE_MAX_BYTES: '1024',
        EXAMPLE_MAX_BYTES: '4096',
        LOOP_OUTPUT_MAX_BYTES: '1048576',
        ASSISTANT_MAX_MESSAGES: '20',
        ASSISTANT_MAX_TOOL_ROUNDS: '2',
        ASSISTANT_CORRECTION_ROUNDS: '1',
        ASSISTANT_MESSAGE_MAX_CHARS: '500',
      }),
    );
    expect(set.limits).toMatchObject({
      expression: { maxNodesVisited: 5000 },
      schema: { smallestInstanceBytes: 1024 },
      exampleMaxBytes: 4096,
      loopOutputMaxBytes: 1_048_576,
    });
    expect(set.assistant).toMatchObject({ maxMessages: 20, maxToolRounds: 2, correctionRounds: 1, messageMaxChars: 500 });
  });

  it("refuses assistant rounds and messages past what a session's history can hold", () => {
    expect(() => loadConfig(env({ ASSISTANT_MAX_TOOL_ROUNDS: '21' }))).toThrow(/^ASSISTANT_MAX_TOOL_ROUNDS must be at most 20/);
    expect(() => loadConfig(env({ ASSISTANT_CORRECTION_ROUNDS: '11' }))).toThrow(/^ASSISTANT_CORRECTION_ROUNDS must be at most 10/);
    expect(() => loadConfig(env({ ASSISTANT_CORRECTION_ROUNDS: '0' }))).toThrow(/^ASSISTANT_CORRECTION_ROUNDS must be a positive integer/);
    expect(() => loadConfig(env({ ASSISTANT_MESSAGE_MAX_CHARS: '200001' }))).toThrow(/^ASSISTANT_MESSAGE_MAX_CHARS must be at most 200000/);
  });

  it('refuses a schema depth a stored definition could not hold', () => {
    expect(loadConfig(env({ SCHEMA_MAX_DEPTH: '10' })).limits.schema.depth).toBe(10);
    expect(() => loadConfig(env({ SCHEMA_MAX_DEPTH: '25' }))).toThrow(/^SCHEMA_MAX_DEPTH must be at most 24/);
  });
});
