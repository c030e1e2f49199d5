import { Writable } from 'node:stream';
import { rememberSecrets } from './known-secrets';
import { createLogger } from './logger';
import { temporalLogger } from './temporal-logger';

/** A logger writing JSON lines into an array. */
function capturing() {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return { lines, sut: createLogger('worker', { level: 'info', format: 'json' }, destination) };
}

const flushed = () => new Promise((resolve) => setImmediate(resolve));

describe(createLogger.name, () => {
  it('redacts fields named like secrets, at the top and two levels down', async () => {
    const { lines, sut } = capturing();

    sut.info(
      {
        authorization: 'Bearer a',
        headers: { Authorization: 'Bearer b', cookie: 'c=1', 'x-api-key': 'k' },
        connection: { settings: { password: 'p', token: 't' } },
        api_key: 'k2',
        kept: 'ok',
      },
      'calling',
    );
    await flushed();

    expect(lines[0]).toMatchObject({
      authorization: '[redacted]',
      headers: { Authorization: '[redacted]', cookie: '[redacted]', 'x-api-key': '[redacted]' },
      connection: { settings: { password: '[redacted]', token: '[redacted]' } },
      api_key: '[redacted]',
      kept: 'ok',
      msg: 'calling',
    });
  });

  it('scrubs the message of query strings, credentials and the secrets the process knows', async () => {
    rememberSecrets(['the-database-password-9']);
    const { lines, sut } = capturing();

    sut.warn(`run x: GET https://api.example/v1/items?api_key=k-123&q=1 failed with Bearer abcdef123456 as the-database-password-9`);
    sut.error({ context: 'Filter' }, 'request failed: password=hunter22');
    await flushed();

    expect(lines.map((line) => line.msg)).toEqual([
      'run x: GET https://api.example/v1/items?[redacted] failed with Bearer [redacted] as [redacted]',
      'request failed: password=[redacted]',
    ]);
  });

  it('scrubs the errors and failures the Temporal SDK logs', async () => {
    const { lines, sut } = capturing();

    temporalLogger(sut).warn('Activity failed', {
      error: new Error('tool answered 500 at https://t.example/?token=abc'),
      failure: 'ApplicationFailure: token: abcdef\n at x',
    });
    await flushed();

    expect(lines[0]).toMatchObject({
      error: { message: 'tool answered 500 at https://t.example/?[redacted]' },
      failure: 'ApplicationFailure: token: [redacted]',
    });
  });
});
