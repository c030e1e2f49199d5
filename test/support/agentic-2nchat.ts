// The 2nChat example of the agentic document format (test/fixtures/agentic-2nChat.json) as the specs import it.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';

export type AgenticDocument = { id: string; nodes: Record<string, unknown>[]; edges: Record<string, unknown>[]; [key: string]: unknown };
export const TWO_N_CHAT = JSON.parse(readFileSync(path.join(__dirname, '../fixtures/agentic-2nChat.json'), 'utf8')) as AgenticDocument;
/** The agents the example names (by agentId, and externalSearchCaller by name), which a user's workflows must hold as agent steps. */
export const TWO_N_CHAT_AGENTS = {
  'agent-uuid-router': 'Router',
  'agent-uuid-rc2': 'RC2',
  'agent-uuid-dm2': 'DM2',
  'agent-uuid-2n': '2N',
  'agent-uuid-search': 'externalSearchCaller',
};

/**
 * The example as written, with the user's agent step uuids for its agent-uuid-* ids. Its edges use
 * node-uuid-6 without listing it: the import takes it as the agent their value names, externalSearchCaller.
 */
export function twoNChat(agentUuid: Map<string, string>, id = `2nChat-${randomUUID().slice(0, 8)}`): AgenticDocument {
  return {
    ...TWO_N_CHAT,
    id,
    nodes: TWO_N_CHAT.nodes.map((node) => ({ ...node, agentId: node.agentId ? agentUuid.get(node.agentId as string) : null })),
  };
}
