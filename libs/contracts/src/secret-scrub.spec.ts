import fc from 'fast-check';
import { failureMessage } from './failure-message';
import {
  MIN_KNOWN_SECRET_CHARS,
  REDACTED,
  scrubSecrets,
  shortened,
  TOOL_ERROR_DETAIL_CHARS,
  toolErrorDetail,
  withoutQueryStrings,
} from './secret-scrub';

describe(withoutQueryStrings.name, () => {
  it.each([
    [
      'http_request GET https://api.example.com/v1/items?api_key=abc123&q=x failed',
      `http_request GET https://api.example.com/v1/items?${REDACTED} failed`,
    ],
    ['see "https://x.example/a?token=t#frag", then', `see "https://x.example/a?${REDACTED}#${REDACTED}", then`],
    ['mysql://root:hunter2@db:3306/stepwise', `mysql://${REDACTED}@db:3306/stepwise`],
    ['http://127.0.0.1:9/ refused', 'http://127.0.0.1:9/ refused'],
    ['GET /v1/items?api_key=abc&region=eu answered 401', `GET /v1/items?${REDACTED} answered 401`],
    ['{"error":"refused ?token=abc&x=1"}', `{"error":"refused ?${REDACTED}"}`],
    ['is it? yes', 'is it? yes'],
  ])('%s', (text, expected) => expect(withoutQueryStrings(text)).toBe(expected));
});

describe(scrubSecrets.name, () => {
  it.each([
    ['Authorization: Bearer abcdef123456', 'Bearer'],
    ['{"api_key":"k-123456","name":"x"}', 'k-123456'],
    ["password='correct horse'", 'correct horse'],
    ['X-Api-Key: 0123abcd', '0123abcd'],
    ['client_secret=s3cr3t&grant_type=x', 's3cr3t'],
    ['key sk-proj-AbCdEf0123456789xyz was refused', 'sk-proj-AbCdEf0123456789xyz'],
    ['our key sk_QkYx1rK8m2vS0dE4pL7nT9aW3cB6 is wrong', 'sk_QkYx1rK8m2vS0dE4pL7nT9aW3cB6'],
    ['notify secret whsec_c2VjcmV0LXNlY3JldA== leaked', 'whsec_c2VjcmV0LXNlY3JldA=='],
    ['ghp_0123456789abcdefghijABCDEFGHIJ in a message', 'ghp_0123456789abcdefghijABCDEFGHIJ'],
    ['AKIAIOSFODNN7EXAMPLE', 'AKIAIOSFODNN7EXAMPLE'],
    ['jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl here', 'eyJzdWIiOiIxIn0'],
    ['-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----', 'MIIEow'],
    ['digest 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08 seen', '9f86d081884c7d659a2feaa0c55ad015'],
  ])('takes the secret out of %j', (text, secret) => {
    const scrubbed = scrubSecrets(text);
    expect(scrubbed).not.toContain(secret);
    expect(scrubbed).toContain(REDACTED);
  });

  it('leaves ordinary messages as they are: uuids, paths, statuses, words about tokens', () => {
    const text =
      'Step "fetch" failed: tool lookup answered 503 at /api/v1/runs/6b0c1a52-3f0e-4a57-9d43-1a2b3c4d5e6f/steps; the token expired, password is wrong, status: 503';
    expect(scrubSecrets(text)).toBe(text);
  });

  it('takes out a secret it is told of, by value, but not one too short to tell from words', () => {
    expect(scrubSecrets('connect as sup3r-s3cret-pw failed', ['sup3r-s3cret-pw'])).toBe(`connect as ${REDACTED} failed`);
    expect(scrubSecrets('queue stepwise-runs', ['stepwise'])).toBe('queue stepwise-runs');
  });

  it('reads a pair whose value is the name of the next one', () => {
    expect(scrubSecrets('ApplicationFailure: token: abcdef')).toBe(`ApplicationFailure: token: ${REDACTED}`);
  });

  it('takes out any known secret from any text holding it, wherever it sits', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 200 }),
        fc.string({ minLength: MIN_KNOWN_SECRET_CHARS, maxLength: 40 }),
        fc.string({ maxLength: 200 }),
        fc.string({ minLength: MIN_KNOWN_SECRET_CHARS, maxLength: 40 }),
        (before, secret, after, other) => {
          fc.pre(!REDACTED.includes(secret) && !REDACTED.includes(other));
          const scrubbed = scrubSecrets(`${before}${secret}${after}${secret}`, [other, secret]);
          expect(scrubbed.includes(secret)).toBe(false);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('takes out any URL query string, whatever the URL and the query', () => {
    fc.assert(
      fc.property(fc.webUrl({ withQueryParameters: true, withFragments: true }), fc.string({ maxLength: 50 }), (url, text) => {
        const { search, hash } = new URL(url);
        fc.pre(search.length > 1 || hash.length > 1);
        // The text around the URL may itself read like its query ("?G" around "http://a.aa?G"): only the URL's is taken out.
        fc.pre([search, hash].every((part) => part.length <= 1 || !text.includes(part)));
        const scrubbed = scrubSecrets(`${text} ${url} ${text}`);
        if (search.length > 1) expect(scrubbed).not.toContain(search);
        if (hash.length > 1) expect(scrubbed).not.toContain(hash);
      }),
      { numRuns: 1000 },
    );
  });

  it("stays linear on any unit of the patterns' pieces repeated to 256 KiB", () => {
    const pieces = [
      'sk-',
      'sk_',
      'eyJ',
      'xoxb-',
      'AIza',
      'whsec_',
      'token',
      'password',
      'Bearer ',
      'http://',
      'a://',
      '=',
      ':',
      '"',
      "'",
      ' ',
      '?',
      '#',
      '@',
      '/',
      '.',
      '-',
      '_',
      'a',
      'Z',
      '1',
      '\n',
      '-----BEGIN PRIVATE KEY-----',
    ];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...pieces), { minLength: 1, maxLength: 8 }), (unit) => {
        const once = unit.join('');
        const body = once.repeat(Math.ceil((256 * 1024) / once.length));
        const started = process.cpuUsage();
        scrubSecrets(body);
        const { user, system } = process.cpuUsage(started);
        expect([once, (user + system) / 1000 < 1500]).toEqual([once, true]);
      }),
      { numRuns: 60 },
    );
  });

  // Each case has a CPU budget far above what a linear pass takes (tens of ms) and far below what a
  // pattern that searches again from every position takes (minutes on a megabyte).
  it.each([
    ['one word', 'a'.repeat(1 << 20)],
    ['pairs', 'token='.repeat(1 << 17)],
    ['signs', 'x:'.repeat(1 << 19)],
    ['secret signs', 'password:'.repeat(1 << 17)],
    ['near-tokens', 'sk-'.repeat(1 << 18)],
    ['schemes', 'Bearer '.repeat(1 << 17)],
    ['URLs', 'http://a/?'.repeat(1 << 17)],
    ['schemes of URLs', 'a://b@'.repeat(1 << 17)],
    ['JWT heads', 'eyJ-'.repeat(1 << 18)],
    ['JWT segments', 'eyJabcde.'.repeat(1 << 17)],
    ['Slack heads', 'xoxb-'.repeat(1 << 17)],
    ['Google heads', 'AIza-'.repeat(1 << 17)],
    ['webhook secrets', 'whsec_x/'.repeat(1 << 17)],
    ['PEM heads', '-----BEGIN PRIVATE KEY-----'.repeat(1 << 15)],
    ['short random runs', 'a1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p '.repeat(1 << 15)],
  ])('gets through a megabyte of %s within its budget', (_case, body) => {
    const started = process.cpuUsage();
    const scrubbed = scrubSecrets(body);
    const { user, system } = process.cpuUsage(started);
    expect(scrubbed.length).toBeLessThanOrEqual(body.length * 2);
    expect((user + system) / 1000).toBeLessThan(3000);
  });
});

describe(toolErrorDetail.name, () => {
  it('keeps 512 characters of one line, scrubbed, of however long a body', () => {
    const body = `{"error":"bad key","api_key":"k-99999999"}\n${'x '.repeat(10_000)}`;
    const detail = toolErrorDetail(body);
    expect(detail.length).toBeLessThanOrEqual(TOOL_ERROR_DETAIL_CHARS + 1);
    expect(detail).not.toContain('k-99999999');
    expect(detail).not.toContain('\n');
    expect(detail.endsWith('…')).toBe(true);
  });

  it('does not leave half a token where the first cut went through it', () => {
    const body = `${'a '.repeat(1020)}sk-${'Z9'.repeat(40)}`;
    expect(toolErrorDetail(body)).not.toContain('Z9Z9');
  });
});

describe(shortened.name, () => {
  it('never cuts a surrogate pair in two', () => {
    expect(shortened('ab😀cd', 3)).toBe('ab…');
    expect(shortened('abc', 3)).toBe('abc');
  });
});

describe(failureMessage.name, () => {
  it('gives the innermost cause, scrubbed', () => {
    const error = { message: 'Activity task failed', cause: { message: 'tool lookup answered 500 at https://t.example/x?api_key=abc' } };
    expect(failureMessage(error)).toBe(`tool lookup answered 500 at https://t.example/x?${REDACTED}`);
  });
});
