import { Module } from '@nestjs/common';
import { AppConfig } from '@app/config';
import { Metrics } from '@app/observability';
import { CallAuditRepository, OutputRepository, PersistenceModule } from '@app/persistence';
import {
  BuiltinToolTransport,
  EgressPolicy,
  HttpToolTransport,
  McpClientModule,
  McpClientPool,
  McpToolTransport,
  ModelClients,
  ToolTransport,
} from '@app/providers';
import { modelClientsOf } from './model-clients';
import { AgentTranscript } from './execution/agent-transcript.service';
import { CallCosts } from './execution/call-costs';
import { ProviderGate } from './execution/provider-gate';
import { ResponseCacheService } from './execution/response-cache';
import { SpendGuard } from './execution/spend-guard';
import { CallQuarantine } from './execution/call-quarantine.service';
import { AgentStepService } from './execution/agent-step.service';
import { AgentToolsService } from './execution/agent-tools.service';
import { LlmStepService } from './execution/llm-step.service';
import { GraphService } from './execution/graph.service';
import { ToolExecutorService } from './execution/tool-executor.service';
import { ConversationService } from './execution/conversation.service';
import { HumanInputService } from './execution/human-input.service';
import { LoopService } from './execution/loop.service';
import { SubWorkflowService } from './execution/sub-workflow.service';
import { WorkflowToolService } from './execution/workflow-tool.service';
import { NotificationService } from './execution/notification.service';
import { ModelCallService } from './execution/model-call.service';
import { ReplayRecord } from './execution/replay-record.service';
import { AnswerDeltas } from './execution/answer-deltas.service';
import { EvaluationService } from './evaluations/evaluation.service';
import { EvaluationJudge } from './evaluations/evaluation-judge';
import { StepSummaryService } from './execution/step-summary.service';
import { StructuredOutputService } from './execution/structured-output.service';
import { RecentOutputs } from './execution/recent-outputs';
import { StepInputService } from './execution/step-input.service';
import { StopCheckerService } from './execution/stop-checker.service';
import { ToolCallService } from './execution/tool-call.service';
import { RunLifeServicesModule } from './run-life-services.module';

/** The services behind the activities, over persistence and the MCP clients (config is global). */
@Module({
  imports: [PersistenceModule, McpClientModule, RunLifeServicesModule],
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
      useFactory: (
        tools: AgentToolsService,
        outputs: OutputRepository,
        calls: CallAuditRepository,
        transcript: AgentTranscript,
        transports: ToolTransport[],
        metrics: Metrics,
        quarantine: CallQuarantine,
        record: ReplayRecord,
      ) => new ToolCallService(tools, outputs, calls, transcript, transports, metrics, quarantine, record),
      inject: [
        AgentToolsService,
        OutputRepository,
        CallAuditRepository,
        AgentTranscript,
        ToolTransport,
        Metrics,
        CallQuarantine,
        ReplayRecord,
      ],
    },
    CallQuarantine,
    CallCosts,
    SpendGuard,
    ResponseCacheService,
    ProviderGate,
    StepInputService,
    RecentOutputs,
    ModelCallService,
    ReplayRecord,
    AnswerDeltas,
    EvaluationService,
    EvaluationJudge,
    StepSummaryService,
    StructuredOutputService,
    AgentToolsService,
    AgentTranscript,
    LlmStepService,
    AgentStepService,
    StopCheckerService,
    LoopService,
    SubWorkflowService,
    WorkflowToolService,
    GraphService,
    ToolExecutorService,
    HumanInputService,
    ConversationService,
    NotificationService,
  ],
  exports: [
    ModelClients,
    LlmStepService,
    AgentStepService,
    ToolCallService,
    StopCheckerService,
    LoopService,
    SubWorkflowService,
    WorkflowToolService,
    GraphService,
    ToolExecutorService,
    HumanInputService,
    ConversationService,
    NotificationService,
    StepSummaryService,
  ],
})
export class WorkerModule {}
