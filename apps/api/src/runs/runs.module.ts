import { Module } from '@nestjs/common';
import { DefinitionsModule } from '../definitions.module';
import { ToolsController } from '../tools/tools.controller';
import { ToolsService } from '../tools/tools.service';
import { RunLauncher, TemporalRunLauncher } from './run-launcher';
import { RunsController } from './runs.controller';
import { RunsService } from './runs.service';

/** Runs (start, read, cancel, outputs) and the tool registry their agents use. */
@Module({
  imports: [DefinitionsModule],
  controllers: [RunsController, ToolsController],
  providers: [RunsService, ToolsService, { provide: RunLauncher, useClass: TemporalRunLauncher }],
})
export class RunsModule {}
