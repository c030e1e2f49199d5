// An admin connection to the test MySQL, for specs that break the database under a running worker: the
// worker gets a MySQL user of its own, so its connections (and no other spec's) can be killed.
import { randomUUID } from 'node:crypto';
import { createConnection, type Connection } from 'mysql2/promise';

export class MysqlAdmin {
  private readonly users: string[] = [];

  private constructor(
    private readonly connection: Connection,
    private readonly databaseUrl: URL,
  ) {}

  static async connect(databaseUrl = process.env.DATABASE_URL!): Promise<MysqlAdmin> {
    return new MysqlAdmin(await createConnection({ uri: databaseUrl }), new URL(databaseUrl));
  }

  /** A new user with every right on the test database; returns a DATABASE_URL that logs in as it. */
  async createUser(): Promise<{ user: string; databaseUrl: string }> {
    const user = `sw_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
    const password = randomUUID();
    const database = this.databaseUrl.pathname.slice(1);
    await this.connection.query('CREATE USER ?@? IDENTIFIED BY ?', [user, '%', password]);
    await this.connection.query(`GRANT ALL ON \`${database}\`.* TO ?@?`, [user, '%']);
    this.users.push(user);
    const url = new URL(this.databaseUrl);
    url.username = user;
    url.password = password;
    return { user, databaseUrl: url.toString() };
  }

  /** KILLs every connection of `user` (as a server restart or a network cut would end them); returns how many. */
  async killConnectionsOf(user: string): Promise<number> {
    const [rows] = await this.connection.query('SELECT ID AS id FROM information_schema.PROCESSLIST WHERE USER = ? AND ID <> CONNECTION_ID()', [user]);
    const ids = (rows as { id: number }[]).map((row) => row.id);
    for (const id of ids) {
      await this.connection.query('KILL ?', [id]).catch(() => undefined); // gone already
    }
    return ids.length;
  }

  async close(): Promise<void> {
    for (const user of this.users) await this.connection.query('DROP USER IF EXISTS ?@?', [user, '%']);
    await this.connection.end();
  }
}
