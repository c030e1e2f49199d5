// Baseline (b): the same chains as Temporal workflows whose activities only call the model fake (and the
// tool server), with no API and no MySQL: the floor Temporal itself sets on this machine.
import { proxyActivities } from '@temporalio/workflow';
import type { BareActivities } from './bare.activities';

const { callModel, callTool } = proxyActivities<BareActivities>({ startToCloseTimeout: '1 minute' });

export async function bareChain(steps: number): Promise<void> {
  for (let i = 0; i < steps; i++) await callModel(i);
}

export async function bareAgent(toolCalls: number): Promise<void> {
  for (let i = 0; i < toolCalls; i++) {
    await callModel(i);
    await callTool(i);
  }
  await callModel(toolCalls);
}
