import { Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import { AppConfig } from '@app/config';
import { McpToolSource } from '@app/contracts';
import { EgressPolicy } from '../net/egress-fetch';
import { McpClientPool } from './mcp-client-pool';

/** One MCP client pool per process (API and worker), its HTTP through the egress policy, its answers capped (TOOL_ANSWER_MAX_BYTES); closed at shutdown (stdio servers exit). */
@Module({
  providers: [
    {
      provide: McpClientPool,
      useFactory: (config: AppConfig) =>
        new McpClientPool({
          fetch: new EgressPolicy(config.egress.allow).fetch,
          stdioAllowed: config.mcp.stdioAllowed,
          answerMaxBytes: config.toolAnswers.maxBytes,
        }),
      inject: [AppConfig],
    },
    { provide: McpToolSource, useExisting: McpClientPool },
  ],
  exports: [McpClientPool, McpToolSource],
})
export class McpClientModule implements OnApplicationShutdown {
  constructor(@Inject(McpClientPool) private readonly pool: McpClientPool) {}

  async onApplicationShutdown(): Promise<void> {
    await this.pool.close();
  }
}
