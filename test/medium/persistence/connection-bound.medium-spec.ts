// DATABASE_POOL_SIZE bounds a process's MySQL connections in all, its two pools together: a worker whose
// activities all want the database at once (a for_each's items ending together) waits for a connection
// instead of asking the server for more than its share. The spec's MySQL user may hold no more connections
// than the setting (MAX_USER_CONNECTIONS), as a server at its max_connections would refuse them: each pool
// opening the setting's worth, as they did, had statements refused (ER_TOO_MANY_USER_CONNECTIONS).
import { DataSource } from 'typeorm';
import { OneTripPool } from '@app/persistence';
import { MysqlAdmin } from '../../support/mysql-admin';
import { startMedium, type MediumApp } from '../support/medium-app';

describe('DATABASE_POOL_SIZE', () => {
  const poolSize = 6;
  let admin: MysqlAdmin;
  let app: MediumApp;
  let user: string;

  beforeAll(async () => {
    admin = await MysqlAdmin.connect();
    const limited = await admin.createUser({ maxConnections: poolSize });
    user = limited.user;
    app = await startMedium({ databaseUrl: limited.databaseUrl, databasePoolSize: poolSize });
  });
  afterAll(async () => {
    await app?.close();
    await admin?.close();
  });

  it('keeps a process within its connections however many statements it has in flight: the rest wait their turn', async () => {
    const [shared, oneTrip] = [app.get(DataSource), app.get(OneTripPool)];
    const busy = 'SELECT SLEEP(0.05) AS slept';

    // 120 at once, half through each pool: each holds its connection 50 ms.
    const done = await Promise.allSettled(
      Array.from({ length: 60 }, () => [shared.query(busy), oneTrip.transaction([{ sql: busy, params: [] }])]).flat(),
    );

    expect(
      done.filter((outcome) => outcome.status === 'rejected').map((outcome) => String((outcome as PromiseRejectedResult).reason)),
    ).toEqual([]);
    expect(done).toHaveLength(120);
    expect(await admin.connectionsOf(user)).toBeLessThanOrEqual(poolSize);
  });
});
