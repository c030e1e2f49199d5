// Builds the API application: main.ts listens with it, and e2e tests start it on port 0.
import { type INestApplication, RequestMethod } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import express from 'express';
import type { AppConfig } from '@app/config';
import { createLogger, type Logger, Metrics, PinoNestLogger } from '@app/observability';
import type { DestinationStream } from 'pino';
import { AppModule } from './app.module';
import { AddressLimiter } from './auth';
import { keepRawBody } from './common/raw-body';
import { openApiComponents } from './common/openapi';
import { runComponents } from './common/openapi-runs';
import { assistantComponents } from './assistant/assistant.openapi';
import { mcpComponents } from './mcp-servers/openapi-mcp';
import { accessLog } from './common/access-log';
import { requestIdMiddleware } from './common/request-id';
import { requestSpan } from './common/request-span';
import { TracingService } from './observability/tracing.service';
import { mountRunsPage } from './runs/runs-page';
import { mountReportPage } from './evaluations/report-page';
import { codecCors } from './temporal-codec/codec-cors';
import { FairDispatch } from './common/fair-dispatch';
import { ConnectionCap } from './common/connection-cap';

export interface ApiAppOptions {
  /** Where log lines go (stdout by default): tests read them from memory. */
  logDestination?: DestinationStream;
}

export async function createApiApp(config: AppConfig, options: ApiAppOptions = {}): Promise<INestApplication> {
  const logger: Logger = createLogger('api', config.log, options.logDestination);
  const app = await NestFactory.create(AppModule.forRoot(config), { bodyParser: false, logger: new PinoNestLogger(logger) });
  // Requests start in turns across client addresses: one address's burst cannot hold everyone else's behind it.
  FairDispatch.install(app.getHttpServer());
  // And one address's connections past a cap are answered 429 before Node's HTTP parser ever sees them.
  if (config.api.maxConnectionsPerAddress) ConnectionCap.install(app.getHttpServer(), config.api.maxConnectionsPerAddress);
  // Whose address a request is: the socket's unless API_TRUST_PROXY names the proxies in front.
  const expressApp = app.getHttpAdapter().getInstance() as express.Express;
  expressApp.set('trust proxy', config.api.trustProxy);
  // No ETag: no client revalidates an API answer, and hashing every answer (refusals of a storm too) costs the loop.
  expressApp.set('etag', false);
  if (app.get(TracingService).enabled) app.use(requestSpan);
  app.use(requestIdMiddleware);
  app.use(accessLog(logger, app.get(Metrics)));
  app.use('/api/v1/temporal-codec', codecCors(config.temporal.codecCorsOrigins));
  // Requests no key pays for, per client address: before the body is parsed or a key looked up.
  app.use(app.get(AddressLimiter).middleware);
  // Our own JSON parser so that its limit and its errors (413, 400) go through the exception filter.
  const json = { limit: config.api.bodyLimitBytes, type: ['application/json', 'application/*+json'], verify: keepRawBody };
  // Webhook bodies are only read here: the hooks' worker threads parse them, off this event loop (issue #26).
  app.use('/api/v1/hooks', express.raw(json));
  app.use(express.json(json));
  mountRunsPage(app);
  mountReportPage(app);
  // The MCP endpoint sits at /mcp, where MCP clients look for it, and the pages at /assistant and /temporal-ui;
  // every other route is under /api/v1.
  app.setGlobalPrefix('api/v1', {
    exclude: [
      { path: 'mcp', method: RequestMethod.ALL },
      { path: 'assistant', method: RequestMethod.GET },
      { path: 'temporal-ui', method: RequestMethod.GET },
    ],
  });
  app.enableShutdownHooks();
  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('stepwise')
      .setDescription('Durable LLM workflows on Temporal. Field names are snake_case; errors are {code, message, details, request_id}.')
      .setVersion('1')
      .addBearerAuth()
      .build(),
  );
  document.components = {
    ...document.components,
    schemas: { ...document.components?.schemas, ...openApiComponents(), ...runComponents(), ...mcpComponents(), ...assistantComponents() },
  };
  SwaggerModule.setup('api/docs', app, document);
  return app;
}
