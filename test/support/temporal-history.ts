// A run's Temporal history as the server keeps it: fetched through the client, measured in bytes.
import { Client, Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';

type History = temporal.api.history.v1.IHistory;

export async function fetchRunHistory(workflowId: string, address = process.env.TEMPORAL_ADDRESS): Promise<History> {
  const connection = await Connection.connect({ address });
  try {
    return await new Client({ connection }).workflow.getHandle(workflowId).fetchHistory();
  } finally {
    await connection.close();
  }
}

/** The histories of a run's executions, first to last: each one continued as new names the one before. */
export async function executionHistories(workflowId: string, address = process.env.TEMPORAL_ADDRESS): Promise<History[]> {
  const connection = await Connection.connect({ address });
  try {
    const client = new Client({ connection });
    const histories: History[] = [];
    for (let runId: string | undefined = (await client.workflow.getHandle(workflowId).describe()).runId; runId; ) {
      const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
      histories.unshift(history);
      runId = history.events![0].workflowExecutionStartedEventAttributes?.continuedExecutionRunId || undefined;
    }
    return histories;
  } finally {
    await connection.close();
  }
}

/** The history's size as the server stores it (protobuf-encoded). */
export const historyBytes = (history: History): number => temporal.api.history.v1.History.encode(history).finish().length;

/**
 * Every byte field anywhere in the history (payload data and metadata of inputs, results, failures,
 * memo, search attributes, heartbeat details...), by its path, largest first.
 */
export function byteFields(history: History): { path: string; bytes: number }[] {
  const found: { path: string; bytes: number }[] = [];
  const walk = (value: unknown, path: string): void => {
    if (value instanceof Uint8Array) found.push({ path, bytes: value.length });
    else if (Array.isArray(value)) value.forEach((item, i) => walk(item, `${path}[${i}]`));
    else if (value && typeof value === 'object') for (const [key, child] of Object.entries(value)) walk(child, `${path}.${key}`);
  };
  (history.events ?? []).forEach((event, i) => walk(event, `events[${i}](${event.eventType})`));
  return found.sort((a, b) => b.bytes - a.bytes);
}
