import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { loadConfig } from '@app/config';
import { warmUpValidators } from '@app/domain';
import { createApiApp } from './create-app';

async function main(): Promise<void> {
  const config = loadConfig();
  // Before the first request: compiled on its event loop, the validators would hold it 100 ms and more.
  warmUpValidators();
  const app = await createApiApp(config);
  // Nest hands listen's arguments to Node's server.listen(port, host, backlog); its types leave the backlog out.
  const listen = app.listen.bind(app) as unknown as (port: number, host: string, backlog: number) => Promise<unknown>;
  await listen(config.api.port, '0.0.0.0', config.api.listenBacklog);
  new Logger('api').log(`API listening on http://127.0.0.1:${config.api.port}/api/v1 (docs: /api/docs)`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
