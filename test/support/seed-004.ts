// Seed 004's 2nChat example (test/fixtures/seed-004-2nChat.json) as the specs import it.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';

export type AgenticDocument = { id: string; nodes: Record<string, unknown>[]; edges: Record<string, unknown>[]; [key: string]: unknown };
export const SEED_004 = JSON.parse(readFileSync(path.join(__dirname, '../fixtures/seed-004-2nChat.json'), 'utf8')) as AgenticDocument;
/** The agents the example names (by agentId, and externalSearchCaller by name), which a user's workflows must hold as agent steps. */
export const SEED_004_AGENTS = { 'agent-uuid-router': 'Router', 'agent-uuid-rc2': 'RC2', 'agent-uuid-dm2': 'DM2', 'agent-uuid-2n': '2N', 'agent-uuid-search': 'externalSearchCaller' };

/**
 * The example as the seed prints it, with the user's agent step uuids for its agent-uuid-* ids. Its edges use
 * node-uuid-6 without listing it: the import takes it as the agent their value names, externalSearchCaller.
 */
export function twoNChat(agentUuid: Map<string, string>, id = `2nChat-${randomUUID().slice(0, 8)}`): AgenticDocument {
  return { ...SEED_004, id, nodes: SEED_004.nodes.map((node) => ({ ...node, agentId: node.agentId ? agentUuid.get(node.agentId as string) : null })) };
}
