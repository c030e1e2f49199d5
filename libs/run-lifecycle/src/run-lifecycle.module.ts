import { Global, Module, type Provider } from '@nestjs/common';
import { AppConfig, modelPolicyOf } from '@app/config';
import { McpToolCatalog, RunRepository, ToolRepository, WorkflowRepository } from '@app/persistence';
import { RunPreparer, RunResumer, ToolManifestService } from '@app/runs';

const lifecycle: Provider[] = [
  { provide: ToolManifestService, useFactory: (tools: ToolRepository, mcpTools: McpToolCatalog) => new ToolManifestService(tools, mcpTools), inject: [ToolRepository, McpToolCatalog] },
  {
    provide: RunPreparer,
    useFactory: (workflows: WorkflowRepository, runs: RunRepository, toolManifests: ToolManifestService, config: AppConfig) => new RunPreparer(workflows, runs, toolManifests, modelPolicyOf(config)),
    inject: [WorkflowRepository, RunRepository, ToolManifestService, AppConfig],
  },
  { provide: RunResumer, useFactory: (workflows: WorkflowRepository, runs: RunRepository) => new RunResumer(workflows, runs), inject: [WorkflowRepository, RunRepository] },
];

/**
 * The life of a run (`@app/runs`, framework-free) over persistence's repositories, for both apps: the API
 * starts and resumes runs and saves manifests; the worker prepares scheduled runs and the assistant's dry runs.
 */
@Global()
@Module({ providers: lifecycle, exports: lifecycle })
export class RunLifecycleModule {}
