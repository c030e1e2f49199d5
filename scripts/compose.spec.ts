// docker-compose.yml cannot be started here (no Docker engine), so this checks what its users rely on:
// the start-up order, a health check on every long-running service, Temporal on MySQL with the fast
// dynamic config, and settings that libs/config accepts and that name only variables it reads.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { load } from 'js-yaml';
import { loadConfig } from '@app/config';

const ROOT = path.join(__dirname, '..');

interface Service {
  image?: string;
  build?: { context: string; target?: string };
  command?: string[];
  environment?: Record<string, string | number>;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
  ports?: string[];
  volumes?: string[];
  restart?: string;
}

const readText = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');
const compose = load(readText('docker-compose.yml')) as { services: Record<string, Service> };
const services = compose.services;

/** Compose interpolation with no variables set: `${NAME:-default}` gives its default, `$$` a `$`. */
function interpolate(value: string | number): string {
  return String(value)
    .replace(/\$\{[A-Z0-9_]+:-([^}]*)\}/g, '$1')
    .replace(/\$\$/g, '$');
}

function environmentOf(name: string): Record<string, string> {
  return Object.fromEntries(Object.entries(services[name].environment ?? {}).map(([key, value]) => [key, interpolate(value)]));
}

/** One-shot jobs: the services others wait on to complete rather than to be healthy. */
const oneShots = new Set(
  Object.values(services).flatMap((service) =>
    Object.entries(service.depends_on ?? {})
      .filter(([, dependency]) => dependency.condition === 'service_completed_successfully')
      .map(([name]) => name),
  ),
);

describe('docker-compose.yml', () => {
  it('runs MySQL 8, Temporal with its schema and init jobs, the Web UI, migrations, the API and the worker', () => {
    expect(Object.keys(services).sort()).toEqual([
      'api',
      'migrate',
      'mysql',
      'temporal',
      'temporal-init',
      'temporal-schema',
      'temporal-ui',
      'worker',
    ]);
    expect(services.mysql.image).toMatch(/^mysql:8(\.|$)/);
    expect([...oneShots].sort()).toEqual(['migrate', 'temporal-init', 'temporal-schema']);
  });

  it('gives every long-running service a health check, and restarts one-shot jobs only on failure', () => {
    for (const [name, service] of Object.entries(services)) {
      if (oneShots.has(name)) {
        expect({ name, restart: service.restart }).toEqual({ name, restart: 'on-failure' });
      } else {
        expect({ name, test: service.healthcheck?.test?.[0] }).toEqual({ name, test: expect.stringMatching(/^CMD(-SHELL)?$/) });
      }
    }
  });

  it('checks the API through GET /api/v1/health on the port it listens on', () => {
    expect(services.api.healthcheck?.test.join(' ')).toContain(`http://127.0.0.1:${environmentOf('api').API_PORT}/api/v1/health`);
    expect(services.api.ports).toContain('${API_PORT:-3000}:3000');
  });

  it.each(['api', 'worker'])('starts %s only once MySQL and Temporal are healthy, Temporal is set up and the schema migrated', (name) => {
    expect(services[name].depends_on).toEqual({
      mysql: { condition: 'service_healthy' },
      temporal: { condition: 'service_healthy' },
      'temporal-init': { condition: 'service_completed_successfully' },
      migrate: { condition: 'service_completed_successfully' },
    });
  });

  it('starts Temporal on the MySQL service after its schema job, with more than one history shard', () => {
    const temporal = environmentOf('temporal');
    expect(temporal).toMatchObject({ DB: 'mysql8', MYSQL_SEEDS: 'mysql', DB_PORT: '3306' });
    expect(temporal.MYSQL_PWD).toBe(environmentOf('mysql').MYSQL_ROOT_PASSWORD);
    expect(Number(temporal.NUM_HISTORY_SHARDS)).toBeGreaterThan(1);
    expect(services.temporal.depends_on).toMatchObject({ 'temporal-schema': { condition: 'service_completed_successfully' } });
    expect(services['temporal-schema'].command?.join('\n')).toContain('--plugin mysql8');
  });

  it('mounts the dynamic config that lifts the transfer queue poll limit and turns on eager activities', () => {
    const file = environmentOf('temporal').DYNAMIC_CONFIG_FILE_PATH;
    const mount = services.temporal.volumes?.find((volume) => volume.split(':')[1] === `/etc/temporal/${file}`);
    expect(mount).toBeDefined();
    const source = mount!.split(':')[0];
    expect(source).toBe('./deploy/temporal-dynamic-config.yaml');
    const dynamicConfig = load(readText(source)) as Record<string, { value: unknown }[]>;
    expect(dynamicConfig['history.transferProcessorMaxPollRPS']).toEqual([{ value: 10000, constraints: {} }]);
    expect(dynamicConfig['system.enableActivityEagerExecution']).toEqual([{ value: true, constraints: {} }]);
  });

  it('registers exactly the search attributes of the contracts library', () => {
    const file = 'libs/contracts/src/search-attributes.json';
    expect(services['temporal-init'].volumes).toContain(`./${file}:/etc/stepwise/search-attributes.json:ro`);
    // The job reads the file with this sed expression (the admin-tools image has no JSON tool).
    const script = services['temporal-init'].command?.join('\n') ?? '';
    expect(script).toContain(String.raw`sed -n 's/^ *"\([A-Za-z0-9_]*\)" *: *"\([A-Za-z]*\)".*/\1 \2/p'`);
    const seen = readText(file)
      .split('\n')
      .flatMap((line) => /^ *"([A-Za-z0-9_]*)" *: *"([A-Za-z]*)".*/.exec(line)?.slice(1, 3) ?? [])
      .join(' ');
    const wanted = Object.entries(JSON.parse(readText(file)) as Record<string, string>)
      .flat()
      .join(' ');
    expect(seen).toBe(wanted);
  });

  it("publishes the Temporal Web UI on the host's loopback only, and no metrics port at all", () => {
    expect(services['temporal-ui'].ports).toEqual(['127.0.0.1:8233:8080']);
    for (const name of ['api', 'worker']) expect((services[name].ports ?? []).some((port) => /946[45]/.test(port))).toBe(false);
  });

  it("points the Web UI at the API's codec endpoint, which lets the UI's origin call it from the browser", () => {
    const ui = environmentOf('temporal-ui');
    const endpoint = new URL(ui.TEMPORAL_CODEC_ENDPOINT);
    // The browser calls it: the API as the host publishes it, not its compose service name.
    const apiPort = services.api.ports!.map(interpolate).map((port) => port.split(':'))[0];
    expect([endpoint.hostname, endpoint.port, endpoint.pathname]).toEqual(['127.0.0.1', apiPort[0], '/api/v1/temporal-codec']);
    expect(apiPort[1]).toBe(environmentOf('api').API_PORT);
    // The key reaches the endpoint as the browser's cookie, not as the UI's own access token.
    expect([ui.TEMPORAL_CODEC_INCLUDE_CREDENTIALS, ui.TEMPORAL_CODEC_PASS_ACCESS_TOKEN]).toEqual(['true', 'false']);
    const uiHostPort = services['temporal-ui'].ports![0].split(':').slice(0, 2).join(':');
    expect(loadConfig(environmentOf('api')).temporal.codecCorsOrigins).toEqual([`http://${uiHostPort}`]);
  });

  describe('the settings of the API, the worker and the migration job', () => {
    it.each(['api', 'worker', 'migrate'])('%s gets a configuration libs/config accepts, naming only variables it reads', (name) => {
      const environment = environmentOf(name);
      const read = new Set<string>();
      const recording = new Proxy(environment, {
        get: (target, key) => {
          if (typeof key === 'string') read.add(key);
          return Reflect.get(target, key) as unknown;
        },
      });

      const config = loadConfig(recording);

      expect(Object.keys(environment).filter((key) => !read.has(key))).toEqual([]);
      expect([...read].filter((key) => !(key in environment))).toEqual([]);
      expect(config.temporal.address).toBe('temporal:7233');
      expect(config.api.port).toBe(3000);
      const database = new URL(config.databaseUrl);
      const mysql = environmentOf('mysql');
      expect([database.hostname, database.port, database.pathname, database.username, database.password]).toEqual([
        'mysql',
        '3306',
        `/${mysql.MYSQL_DATABASE}`,
        mysql.MYSQL_USER,
        mysql.MYSQL_PASSWORD,
      ]);
    });

    it.each(['api', 'worker', 'migrate'])('%s runs a built entry point of this repository from the Dockerfile image', (name) => {
      const service = services[name];
      expect(service.build).toEqual({ context: '.', target: 'runtime' });
      expect(service.image).toBe(services.api.image);
      const entry = service.command?.find((part) => part.startsWith('dist/')) ?? '';
      expect(entry).toMatch(/^dist\/.+\.js$/);
      expect(existsSync(path.join(ROOT, entry.replace(/^dist\//, '').replace(/\.js$/, '.ts')))).toBe(true);
    });

    it("bounds the worker's heap, and keeps its workflow cache above its task slots", () => {
      expect(services.worker.command).toContain('--max-old-space-size=256');
      const worker = loadConfig(environmentOf('worker')).worker;
      expect(worker.maxCachedWorkflows).toBeGreaterThanOrEqual(worker.maxConcurrentWorkflowTasks);
    });
  });
});

describe('Dockerfile', () => {
  const dockerfile = readText('Dockerfile');

  it('builds on Node 24 in two stages: install, build and prune, then a runtime stage run as the node user', () => {
    const stages = dockerfile.split(/^(?=FROM )/m).filter((stage) => stage.startsWith('FROM '));
    expect(stages.map((stage) => /^FROM (\S+) AS (\S+)/.exec(stage)?.slice(1))).toEqual([
      [expect.stringMatching(/^node:24\b/), 'build'],
      [expect.stringMatching(/^node:24\b/), 'runtime'],
    ]);
    expect(stages[0]).toMatch(/^RUN npm (ci|install)\b/m);
    expect(stages[0]).toMatch(/npm run build[^]*npm prune --omit=dev/);
    expect(stages[1]).toMatch(/^COPY --from=build \/app\/node_modules /m);
    expect(stages[1]).toMatch(/^COPY --from=build \/app\/dist /m);
    expect(stages[1]).toMatch(/^USER node$/m);
  });
});
