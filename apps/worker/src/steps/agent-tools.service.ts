import { Injectable } from '@nestjs/common';
import type { ToolSpec } from '@app/contracts';
import { BUILTIN_TOOLS, END_TOOL } from '@app/domain';
import { ToolRepository, type ToolRecord } from '@app/persistence';
import { StepError } from './step-error';

export type ResolvedTool = { spec: ToolSpec; builtin: true } | { spec: ToolSpec; builtin: false; record: ToolRecord };

/** The tools an agent may call: get_output always, `end` in a conversation, the other built-ins and registered tools by name. */
@Injectable()
export class AgentToolsService {
  constructor(private readonly tools: ToolRepository) {}

  async resolve(userId: string, names: string[], conversational = false): Promise<ResolvedTool[]> {
    const builtins = [
      ...BUILTIN_TOOLS.filter((tool) => tool.name === 'get_output' || names.includes(tool.name)),
      ...(conversational || names.includes(END_TOOL.name) ? [END_TOOL] : []),
    ];
    const wanted = names.filter((name) => !builtins.some((tool) => tool.name === name));
    const registered = await this.tools.findByNames(userId, wanted);
    const missing = wanted.filter((name) => !registered.some((tool) => tool.name === name));
    if (missing.length) throw new StepError('UnknownTool', `unknown tool(s): ${missing.join(', ')}; register them with POST /tools`);
    return [
      ...builtins.map((spec) => ({ spec, builtin: true as const })),
      ...registered.map((record) => ({ spec: { name: record.name, description: record.description, parameters: record.parameters }, builtin: false as const, record })),
    ];
  }
}
