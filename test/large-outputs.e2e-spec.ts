// Large outputs never travel through Temporal: a 5 MiB step output passes to the next step through
// MySQL, while the workflow history carries only {output_id, summary, size_bytes} references.
import { randomUUID } from 'node:crypto';
import { graphEdge, llmStep } from './support/factories';
import { reply } from './support/model-fake';
import { useStack, type Stack } from './support/stack';
import { byteFields, fetchRunHistory, historyBytes } from './support/temporal-history';

const MiB = 1024 * 1024;
/** The threshold: no payload in a run's history may be larger. */
const PAYLOAD_LIMIT = 64 * 1024;

/** `bytes` of plain text (ASCII, so bytes = characters), in numbered lines like a long report. */
function textOf(bytes: number): string {
  const line = (n: number) => `line ${String(n).padStart(7, '0')}: the quick brown fox jumps over the lazy dog.\n`;
  let text = '';
  for (let n = 1; text.length < bytes; n++) text += line(n);
  return text.slice(0, bytes);
}

describe('Large outputs', () => {
  let stack: Stack;

  useStack((started) => (stack = started));

  const run = (steps: Record<string, unknown>[], trigger_output: unknown = { text: 'go' }) => stack.runSteps(steps, trigger_output);

  /** Asserts no payload over the limit; returns what the history weighs, for the report. */
  async function expectSmallHistory(workflowId: string): Promise<string> {
    const history = await fetchRunHistory(workflowId);
    const [largest] = byteFields(history);
    expect(largest.bytes).toBeLessThanOrEqual(PAYLOAD_LIMIT);
    return `history ${historyBytes(history)} bytes in ${history.events!.length} events, largest field ${largest.bytes} bytes (${largest.path})`;
  }

  it('passes a 5 MiB text between two steps, whole, with no Temporal payload over 64 KiB', async () => {
    const text = textOf(5 * MiB);
    const first = llmStep({ name: 'write', system_prompt: 'Write a long report' });
    const second = llmStep({ name: 'check', system_prompt: `Check this report:\n<<step_output.${first.uuid}>>` });
    stack.model.script(reply.text(text), reply.text('checked'));

    const done = await run([first, second]);

    expect(done.status).toBe('completed');
    expect(stack.model.requests[1].body.messages[0].content).toBe(`Check this report:\n${text}`);
    const output = await stack.user.get(`/outputs/${done.steps[0].output!.uuid}`);
    expect(output.status).toBe(200);
    expect(output.body.size_bytes).toBe(5 * MiB);
    expect(output.body.raw_data === text).toBe(true); // not toBe: a failed diff of 5 MiB would drown the report
    console.log(`5 MiB text run: ${done.duration_ms} ms, ${await expectSmallHistory(done.temporal.workflow_id)}`);
  });

  it('passes a 5 MiB JSON answer as data: the next step gets it whole, a path placeholder picks from it', async () => {
    const rows = Array.from({ length: 66_000 }, (_, i) => ({ id: i, name: `item ${i}`, note: 'x'.repeat(40) }));
    const data = { count: rows.length, rows };
    expect(JSON.stringify(data).length).toBeGreaterThan(5 * MiB);
    const first = llmStep({ name: 'extract', system_prompt: 'Extract every row', output_schema: { type: 'object' } });
    const second = llmStep({
      name: 'count',
      system_prompt: `Rows: <<step_output.${first.uuid}>> (count <<step_output.${first.uuid}.count>>)`,
    });
    stack.model.script(reply.json(data), reply.text('counted'));

    const done = await run([first, second]);

    expect(done.status).toBe('completed');
    expect(stack.model.requests[1].body.messages[0].content === `Rows: ${JSON.stringify(data, null, 2)} (count 66000)`).toBe(true);
    const output = await stack.user.get(`/outputs/${done.steps[0].output!.uuid}`);
    expect(output.body.raw_data).toEqual(data);
    console.log(`5 MiB JSON run: ${done.duration_ms} ms, ${await expectSmallHistory(done.temporal.workflow_id)}`);
  });

  it('routes a graph on a 5 MiB answer: its data condition reads it in MySQL, the next node gets it whole, the history stays small', async () => {
    const rows = Array.from({ length: 66_000 }, (_, i) => ({ id: i, name: `item ${i}`, note: 'x'.repeat(40) }));
    const data = { count: rows.length, rows };
    const extract = llmStep({ name: 'extract', system_prompt: 'Extract every row', output_schema: { type: 'object' } });
    const [many, few] = [llmStep({ name: 'many', system_prompt: `Rows: <<step_output.${extract.uuid}>>` }), llmStep({ name: 'few' })];
    const count = (operator: string) => ({ conditions: { all: [{ path: '$.count', operator, value: 1000 }] } });
    const graph = {
      entry_node: extract.uuid,
      edges: [
        graphEdge(extract, many, null, count('greater_than')),
        graphEdge(extract, few, null, count('less_than')),
        graphEdge(many, null),
      ],
    };
    stack.model.script(reply.json(data), reply.text('many rows'));

    const done = await stack.runSteps([extract, many, few], { text: 'go' }, { fields: { graph } });

    expect(done.status).toBe('completed');
    expect(stack.model.requests[1].body.messages[0].content === `Rows: ${JSON.stringify(data, null, 2)}`).toBe(true);
    expect(done.steps.map((step: { name: string; status: string }) => [step.name, step.status])).toEqual([
      ['extract', 'completed'],
      ['many', 'completed'],
      ['few', 'skipped'],
    ]);
    // The step's row references its execution's output: one copy of the 5 MiB in MySQL.
    expect(done.steps[0].output!.uuid).toBe(done.steps[0].iterations[0].output.uuid);
    console.log(`5 MiB JSON graph run: ${done.duration_ms} ms, ${await expectSmallHistory(done.temporal.workflow_id)}`);
  });

  it('takes a trigger_output of about 1 MB through POST /runs without sending it through Temporal', async () => {
    // The API's default body limit (API_BODY_LIMIT_BYTES) is 1 MiB for the whole request body.
    const trigger = { text: textOf(1_000_000) };
    const only = llmStep({ name: 'read', system_prompt: 'Read <<trigger_output.text>>' });
    stack.model.script(reply.text('read'));

    const done = await run([only], trigger);

    expect(done.status).toBe('completed');
    expect(stack.model.requests[0].body.messages[0].content === `Read ${trigger.text}`).toBe(true);
    expect(done.trigger_output!.size_bytes).toBeGreaterThan(1_000_000);
    await expectSmallHistory(done.temporal.workflow_id);
  });

  it('refuses a body over API_BODY_LIMIT_BYTES with a coded 413', async () => {
    const wf = await stack.user.post('/workflows', { name: `large-${randomUUID().slice(0, 8)}`, steps: [llmStep()] });
    const refused = await stack.user.post(`/workflows/${wf.body.uuid}/runs`, { trigger_output: { text: textOf(1.1 * MiB) } });
    expect(refused.status).toBe(413);
    expect(refused.body.code).toEqual(expect.any(String));
  });
});
