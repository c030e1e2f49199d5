import { Definitions1763800000000 } from './1763800000000-definitions';
import { Runs1763800100000 } from './1763800100000-runs';
import { TriggersAndCounters1763800200000 } from './1763800200000-triggers-and-counters';
import { Notifications1763800300000 } from './1763800300000-notifications';
import { Schedules1763800400000 } from './1763800400000-schedules';
import { WorkflowStatus1763800500000 } from './1763800500000-workflow-status';
import { Resume1763800600000 } from './1763800600000-resume';
import { ToolManifest1763800800000 } from './1763800800000-tool-manifest';
import { Loops1763800900000 } from './1763800900000-loops';
import { Graphs1763801000000 } from './1763801000000-graphs';
import { Conversations1763801200000 } from './1763801200000-conversations';
import { StepSummaries1763802100000 } from './1763802100000-step-summaries';
import { DryRuns1763802200000 } from './1763802200000-dry-runs';
import { WebhookSecurity1763802300000 } from './1763802300000-webhook-security';
import { RunQuotas1763802400000 } from './1763802400000-run-quotas';
import { RunBudgets1763802500000 } from './1763802500000-run-budgets';
import { McpServers1764000200000 } from './1764000200000-mcp-servers';
import { ModelCallProvider1764000300000 } from './1764000300000-model-call-provider';
import { Assistant1764000400000 } from './1764000400000-assistant';
import { ConceptNames1764000500000 } from './1764000500000-concept-names';
import { ExactIdentities1764000600000 } from './1764000600000-exact-identities';
import { ScheduleCaps1764000700000 } from './1764000700000-schedule-caps';
import { AssistantOpenSessions1764000800000 } from './1764000800000-assistant-open-sessions';
import { ModelCallRequestHash1764003000000 } from './1764003000000-model-call-request-hash';
import { ModelCallCosts1764003100000 } from './1764003100000-model-call-costs';
import { WorkflowVersions1764003500000 } from './1764003500000-workflow-versions';
import { SpendLimits1764003610000 } from './1764003610000-spend-limits';
import { Replays1764003700000 } from './1764003700000-replays';
import { ModelCallCache1764003710000 } from './1764003710000-model-call-cache';
import { RunEvents1764004000000 } from './1764004000000-run-events';
import { SubWorkflows1764004100000 } from './1764004100000-sub-workflows';
import { Evaluations1764004200000 } from './1764004200000-evaluations';
import { ProviderRates1764004210000 } from './1764004210000-provider-rates';
import { WorkflowBudgets1764004220000 } from './1764004220000-workflow-budgets';
import { NewIdentitiesExact1764004300000 } from './1764004300000-new-identities-exact';
import { RunEventGuardRails1764004400000 } from './1764004400000-run-event-guard-rails';
import { RunSpendLedger1764004500000 } from './1764004500000-run-spend-ledger';
import { RunSpendPause1764004600000 } from './1764004600000-run-spend-pause';
import { RunGuardRailData1764005000000 } from './1764005000000-run-guard-rail-data';
import { SpendHolds1764005200000 } from './1764005200000-spend-holds';
import { ProviderRateShift1764005210000 } from './1764005210000-provider-rate-shift';
import { ModelCallUser1764005220000 } from './1764005220000-model-call-user';
import { StepMessages1764005300000 } from './1764005300000-step-messages';
import { RunEventSeqs1764005400000 } from './1764005400000-run-event-seqs';

// Every migration, in order. Add new ones at the end; never edit one that has shipped.
export const migrations: (new () => unknown)[] = [
  Definitions1763800000000,
  Runs1763800100000,
  TriggersAndCounters1763800200000,
  Notifications1763800300000,
  Schedules1763800400000,
  WorkflowStatus1763800500000,
  Resume1763800600000,
  ToolManifest1763800800000,
  Loops1763800900000,
  Graphs1763801000000,
  Conversations1763801200000,
  StepSummaries1763802100000,
  DryRuns1763802200000,
  WebhookSecurity1763802300000,
  RunQuotas1763802400000,
  RunBudgets1763802500000,
  McpServers1764000200000,
  ModelCallProvider1764000300000,
  Assistant1764000400000,
  ConceptNames1764000500000,
  ExactIdentities1764000600000,
  ScheduleCaps1764000700000,
  AssistantOpenSessions1764000800000,
  ModelCallRequestHash1764003000000,
  ModelCallCosts1764003100000,
  WorkflowVersions1764003500000,
  SpendLimits1764003610000,
  Replays1764003700000,
  ModelCallCache1764003710000,
  RunEvents1764004000000,
  SubWorkflows1764004100000,
  Evaluations1764004200000,
  ProviderRates1764004210000,
  WorkflowBudgets1764004220000,
  NewIdentitiesExact1764004300000,
  RunEventGuardRails1764004400000,
  RunSpendLedger1764004500000,
  RunSpendPause1764004600000,
  RunGuardRailData1764005000000,
  SpendHolds1764005200000,
  ProviderRateShift1764005210000,
  ModelCallUser1764005220000,
  StepMessages1764005300000,
  RunEventSeqs1764005400000,
];
