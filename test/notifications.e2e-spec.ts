// Run-end notifications: a signed POST to the workflow's notify_url, retried until the receiver takes it.
import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { llmStep } from './support/factories';
import { reply } from './support/model-fake';
import { startStack, type Stack } from './support/stack';

interface Received {
  body: string;
  headers: IncomingMessage['headers'];
  answered: number;
}

describe('Run-end notifications', () => {
  let stack: Stack;
  let receiver: Server;
  const received: Received[] = [];
  let failuresLeft = 0;

  beforeAll(async () => {
    stack = await startStack();
    receiver = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const answered = failuresLeft-- > 0 ? 503 : 200;
      received.push({ body: Buffer.concat(chunks).toString(), headers: req.headers, answered });
      res.writeHead(answered).end();
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    await new Promise((resolve) => receiver.close(resolve));
    await stack.close();
  });

  const url = () => `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  const deliveredFor = async (runUuid: string) => stack.waitForRun(runUuid, (run) => run.notification?.status === 'delivered', 30_000);

  it('posts a signed summary when a run completes, after a failed first attempt', async () => {
    const wf = (await stack.user.post('/workflows', { name: 'notified', notify_url: url(), notify_on_complete: true, steps: [llmStep()] })).body;
    expect(wf).toMatchObject({ notify_url: url(), notify_on_complete: true, notify_on_failure: true, notify_secret: expect.stringMatching(/^nsec_/) });
    stack.model.script(reply.text('all good'));
    failuresLeft = 1;
    const run = await deliveredFor((await stack.user.post(`/workflows/${wf.uuid}/runs`, { trigger_output: {} })).body.uuid);

    expect(run.notification).toMatchObject({ url: url(), status: 'delivered', attempts: 2, http_status: 200 });
    const attempts = received.filter((r) => r.headers['x-stepwise-run'] === run.uuid);
    expect(attempts.map((a) => a.answered)).toEqual([503, 200]);
    const delivered = attempts[1];
    expect(delivered.headers['x-stepwise-signature']).toBe(`sha256=${createHmac('sha256', wf.notify_secret).update(delivered.body).digest('hex')}`);
    expect(JSON.parse(delivered.body)).toMatchObject({
      run_uuid: run.uuid,
      workflow_uuid: wf.uuid,
      status: 'completed',
      error_message: null,
      final_output: { output_id: run.steps[0].output.uuid, summary: run.steps[0].output.summary },
    });
  });

  it('reports failures when notify_on_failure is on, and stays quiet on success when notify_on_complete is off', async () => {
    const wf = (await stack.user.post('/workflows', { name: 'failures only', notify_url: url(), steps: [llmStep()] })).body;
    stack.model.script(reply.text('fine'), reply.error(400, { message: 'no such model' }));
    const quiet = await stack.waitForRun((await stack.user.post(`/workflows/${wf.uuid}/runs`, { trigger_output: {} })).body.uuid);
    expect(quiet).toMatchObject({ status: 'completed', notification: null });
    const failed = await deliveredFor((await stack.user.post(`/workflows/${wf.uuid}/runs`, { trigger_output: {} })).body.uuid);
    expect(failed.status).toBe('failed');
    const body = JSON.parse(received.find((r) => r.headers['x-stepwise-run'] === failed.uuid)!.body);
    expect(body).toMatchObject({ status: 'failed', error_message: expect.stringContaining('no such model') });
    expect(received.some((r) => r.headers['x-stepwise-run'] === quiet.uuid)).toBe(false);
  });

  it('refuses a notify_url that is not http(s)', async () => {
    const refused = await stack.user.post('/workflows', { name: 'bad url', notify_url: 'ftp://example.com' });
    expect(refused).toMatchObject({ status: 422, body: { details: { field: 'notify_url' } } });
  });
});
