import { temporalConnectionOptions } from './temporal-connection';

describe(temporalConnectionOptions.name, () => {
  it('is a plain connection to our address without Temporal settings', () => {
    expect(temporalConnectionOptions('127.0.0.1:7233', {})).toEqual({ address: '127.0.0.1:7233' });
  });

  it("takes an API key (and the TLS it implies) from Temporal's own variables, keeping our address", () => {
    const options = temporalConnectionOptions('ns.acct.tmprl.cloud:7233', {
      TEMPORAL_API_KEY: 'secret-key',
      TEMPORAL_ADDRESS: 'elsewhere:7233',
    });
    expect(options).toMatchObject({ address: 'ns.acct.tmprl.cloud:7233', apiKey: 'secret-key' });
    expect(options.tls).toBeTruthy();
  });

  it('refuses a client certificate it cannot read', () => {
    expect(() =>
      temporalConnectionOptions('x:7233', {
        TEMPORAL_TLS_CLIENT_CERT_PATH: '/nonexistent/cert.pem',
        TEMPORAL_TLS_CLIENT_KEY_PATH: '/nonexistent/key.pem',
      }),
    ).toThrow();
  });
});
