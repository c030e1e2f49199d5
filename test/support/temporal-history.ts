// A run's Temporal history as the server keeps it (payloads encrypted): fetched through the client, measured
// in bytes, decrypted for a fixture.
import { Client, Connection } from '@temporalio/client';
import type { Payload } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { isEncryptedPayload, type Keyring, PayloadCipher } from '../../libs/security/src';

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
    // The raw description: describe() would decode the memo, encrypted here.
    const { workflowExecutionInfo } = await client.workflowService.describeWorkflowExecution({
      namespace: client.options.namespace,
      execution: { workflowId },
    });
    for (let runId: string | undefined = workflowExecutionInfo?.execution?.runId ?? undefined; runId;) {
      const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
      histories.unshift(history);
      runId = history.events![0].workflowExecutionStartedEventAttributes?.continuedExecutionRunId || undefined;
    }
    return histories;
  } finally {
    await connection.close();
  }
}

/** The activity types the history scheduled through the task queue, in order (local activities are markers instead). */
export const queuedActivities = (history: History): string[] =>
  (history.events ?? []).flatMap((event) => event.activityTaskScheduledEventAttributes?.activityType?.name ?? []);

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

/** Every payload anywhere in the history (inputs, results, memo, summaries...), as stored. */
export function historyPayloads(history: History): Payload[] {
  const found: Payload[] = [];
  const walk = (value: unknown): void => {
    if (!value || typeof value !== 'object' || value instanceof Uint8Array) return;
    const record = value as Record<string, unknown>;
    if (
      record.metadata &&
      typeof record.metadata === 'object' &&
      (record.metadata as Record<string, unknown>).encoding instanceof Uint8Array
    )
      found.push(record as Payload);
    else Object.values(record).forEach(walk);
  };
  (history.events ?? []).forEach(walk);
  return found;
}

/** The history with its payloads decrypted in place: a fixture that replays under any key. */
export function decryptedHistory(history: History, keyring: Keyring): History {
  const cipher = new PayloadCipher(keyring);
  for (const payload of historyPayloads(history).filter(isEncryptedPayload)) Object.assign(payload, cipher.open(payload));
  return history;
}
