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

  /**
   * A new user with every right on the test database; returns a DATABASE_URL that logs in as it.
   * `maxConnections`: the server refuses it more at once (as it would a process at its max_connections).
   */
  async createUser({ maxConnections }: { maxConnections?: number } = {}): Promise<{ user: string; databaseUrl: string }> {
    const user = `sw_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
    const password = randomUUID();
    const database = this.databaseUrl.pathname.slice(1);
    await this.connection.query('CREATE USER ?@? IDENTIFIED BY ?', [user, '%', password]);
    await this.connection.query(`GRANT ALL ON \`${database}\`.* TO ?@?`, [user, '%']);
    if (maxConnections !== undefined)
      await this.connection.query(`GRANT USAGE ON *.* TO ?@? WITH MAX_USER_CONNECTIONS ${Number(maxConnections)}`, [user, '%']);
    this.users.push(user);
    const url = new URL(this.databaseUrl);
    url.username = user;
    url.password = password;
    return { user, databaseUrl: url.toString() };
  }

  /** How many connections `user` holds now. */
  async connectionsOf(user: string): Promise<number> {
    const [rows] = await this.connection.query('SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE USER = ?', [user]);
    return Number((rows as { n: number }[])[0].n);
  }

  /** KILLs every connection of `user` (as a server restart or a network cut would end them); returns how many. */
  async killConnectionsOf(user: string): Promise<number> {
    const [rows] = await this.connection.query(
      'SELECT ID AS id FROM information_schema.PROCESSLIST WHERE USER = ? AND ID <> CONNECTION_ID()',
      [user],
    );
    const ids = (rows as { id: number }[]).map((row) => row.id);
    for (const id of ids) {
      await this.connection.query('KILL ?', [id]).catch(() => undefined); // gone already
    }
    return ids.length;
  }

  /**
   * Holds a row lock on `table` row `uuid` (in a transaction of this connection) until the returned
   * release() is called: a write to that row waits, in flight, meanwhile.
   */
  async lockRow(table: string, uuid: string): Promise<() => Promise<void>> {
    await this.connection.beginTransaction();
    await this.connection.query(`SELECT uuid FROM \`${table}\` WHERE uuid = ? FOR UPDATE`, [uuid]);
    return () => this.connection.rollback();
  }

  /** Resolves once a statement of `user` starting with `prefix` (e.g. UPDATE `workflow_step_instances`) is running. */
  async waitForStatement(user: string, prefix: string, timeoutMs = 30_000): Promise<void> {
    for (const deadline = Date.now() + timeoutMs; ;) {
      const [rows] = await this.connection.query('SELECT INFO AS info FROM information_schema.PROCESSLIST WHERE USER = ? AND INFO LIKE ?', [
        user,
        `${prefix}%`,
      ]);
      if ((rows as unknown[]).length) return;
      if (Date.now() > deadline) throw new Error(`no statement of ${user} starting with ${prefix} after ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  async close(): Promise<void> {
    for (const user of this.users) await this.connection.query('DROP USER IF EXISTS ?@?', [user, '%']);
    await this.connection.end();
  }
}
