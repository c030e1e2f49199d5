import { Module } from '@nestjs/common';
import { AppConfig } from '@app/config';
import { Metrics } from '@app/observability';
import { CallAuditRepository, OutputRepository } from '@app/persistence';
import { BuiltinToolTransport, EgressPolicy, HttpToolTransport, McpClientPool, McpToolTransport, ModelClients, ToolTransport } from '@app/providers';
import { modelClientsOf } from './model-clients';
import { AgentTranscript } from './steps/agent-transcript.service';
import { CallQuarantine } from './steps/call-quarantine.service';
import { AgentStepService } from './steps/agent-step.service';
import { AgentToolsService } from './steps/agent-tools.service';
import { LlmStepService } from './steps/llm-step.service';
import { GraphService } from './steps/graph.service';
import { ToolExecutorService } from './steps/tool-executor.service';
import { ConversationService } from './steps/conversation.service';
import { HumanInputService } from './steps/human-input.service';
import { LoopService } from './steps/loop.service';
import { NotificationService } from './steps/notification.service';
import { ModelCallService } from './steps/model-call.service';
import { StepSummaryService } from './steps/step-summary.service';
import { StructuredOutputService } from './steps/structured-output.service';
import { StepInputService } from './steps/step-input.service';
import { StopCheckerService } from './steps/stop-checker.service';
import { ToolCallService } from './steps/tool-call.service';

/** The services behind the activities. Config and persistence come from the root module. */
@Module({
  providers: [
    { provide: ModelClients, useFactory: modelClientsOf, inject: [AppConfig] },
    { provide: EgressPolicy, useFactory: (config: AppConfig) => new EgressPolicy(config.egress.allow), inject: [AppConfig] },
    {
      provide: ToolTransport,
      useFactory: (egress: EgressPolicy, mcp: McpClientPool, config: AppConfig) => [
        new HttpToolTransport(egress.fetch, { answerMaxBytes: config.toolAnswers.maxBytes }),
        new BuiltinToolTransport(egress.fetch),
        new McpToolTransport(mcp),
      ],
      inject: [EgressPolicy, McpClientPool, AppConfig],
    },
    {
      provide: ToolCallService,
      useFactory: (tools: AgentToolsService, outputs: OutputRepository, calls: CallAuditRepository, transcript: AgentTranscript, transports: ToolTransport[], metrics: Metrics, quarantine: CallQuarantine) =>
        new ToolCallService(tools, outputs, calls, transcript, transports, metrics, quarantine),
      inject: [AgentToolsService, OutputRepository, CallAuditRepository, AgentTranscript, ToolTransport, Metrics, CallQuarantine],
    },
    CallQuarantine,
    StepInputService,
    ModelCallService,
    StepSummaryService,
    StructuredOutputService,
    AgentToolsService,
    AgentTranscript,
    LlmStepService,
    AgentStepService,
    StopCheckerService,
    LoopService,
    GraphService,
    ToolExecutorService,
    HumanInputService,
    ConversationService,
    NotificationService,
  ],
  exports: [ModelClients, LlmStepService, AgentStepService, ToolCallService, StopCheckerService, LoopService, GraphService, ToolExecutorService, HumanInputService, ConversationService, NotificationService, StepSummaryService],
})
export class WorkerModule {}
