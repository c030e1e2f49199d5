import { Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { Client, Connection } from '@temporalio/client';
import { AppConfig } from '@app/config';

/** The API's one Temporal connection, opened on first use so definitions work while Temporal starts. */
@Injectable()
export class TemporalClient implements OnApplicationShutdown {
  private pending: Promise<Client> | null = null;

  constructor(readonly config: AppConfig) {}

  get(): Promise<Client> {
    this.pending ??= Connection.connect({ address: this.config.temporal.address })
      .then((connection) => new Client({ connection, namespace: this.config.temporal.namespace }))
      .catch((error: unknown) => {
        this.pending = null;
        throw error;
      });
    return this.pending;
  }

  async onApplicationShutdown(): Promise<void> {
    const client = await this.pending?.catch(() => null);
    await client?.connection.close();
  }
}
