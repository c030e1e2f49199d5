// Run-end notifications: a POST to the workflow's notify_url signed the Standard Webhooks way (checked here
// with the `standardwebhooks` library), retried until the receiver takes it.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { llmStep } from './support/factories';
import { reply } from './support/model-fake';
import { Webhook } from 'standardwebhooks';
import { DataSource } from 'typeorm';
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
    const wf = (await stack.user.post('/workflows', { name: 'notified', notify_url: url(), notify_on_complete: true, steps: [llmStep()] }))
      .body;
    expect(wf).toMatchObject({
      notify_url: url(),
      notify_on_complete: true,
      notify_on_failure: true,
      notify_secret: expect.stringMatching(/^whsec_/),
    });
    // Shown once: no read gives it again, and the database keeps it sealed.
    expect((await stack.user.get(`/workflows/${wf.uuid}`)).body).not.toHaveProperty('notify_secret');
    expect((await stack.user.get(`/workflows/${wf.uuid}/details`)).body).not.toHaveProperty('notify_secret');
    const [stored] = await stack.api.app.get(DataSource).query('SELECT notify_secret FROM workflows WHERE uuid = ?', [wf.uuid]);
    expect(stored.notify_secret).toMatch(/^sealed:v1:/);
    expect(stored.notify_secret).not.toContain(wf.notify_secret.slice(6));
    stack.model.script(reply.text('all good'));
    failuresLeft = 1;
    const run = await deliveredFor((await stack.user.post(`/workflows/${wf.uuid}/runs`, { trigger_output: {} })).body.uuid);

    expect(run.notification).toMatchObject({ url: url(), status: 'delivered', attempts: 2, http_status: 200 });
    const attempts = received.filter((r) => r.headers['x-stepwise-run'] === run.uuid);
    expect(attempts.map((a) => a.answered)).toEqual([503, 200]);
    const delivered = attempts[1];
    const verified = new Webhook(wf.notify_secret).verify(delivered.body, delivered.headers as Record<string, string>);
    expect(delivered.headers['webhook-id']).toBe(`msg_${run.uuid}`);
    expect(verified).toMatchObject({
      run_uuid: run.uuid,
      workflow_uuid: wf.uuid,
      status: 'completed',
      error_message: null,
      final_output: { output_id: run.steps[0].output!.uuid, summary: run.steps[0].output!.summary },
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

  it('rotates the secret: the next notification verifies with the new one only', async () => {
    const wf = (await stack.user.post('/workflows', { name: 'rotated', notify_url: url(), notify_on_complete: true, steps: [llmStep()] }))
      .body;
    const rotated = await stack.user.post(`/workflows/${wf.uuid}/rotate-notify-secret`);
    expect(rotated).toMatchObject({ status: 201, body: { workflow_uuid: wf.uuid, notify_secret: expect.stringMatching(/^whsec_/) } });
    stack.model.script(reply.text('done'));
    const run = await deliveredFor((await stack.user.post(`/workflows/${wf.uuid}/runs`, { trigger_output: {} })).body.uuid);
    const delivered = received.find((r) => r.headers['x-stepwise-run'] === run.uuid)!;
    const headers = delivered.headers as Record<string, string>;
    expect(new Webhook(rotated.body.notify_secret).verify(delivered.body, headers)).toMatchObject({ run_uuid: run.uuid });
    expect(() => new Webhook(wf.notify_secret).verify(delivered.body, headers)).toThrow();
    expect((await (await stack.api.newUser()).post(`/workflows/${wf.uuid}/rotate-notify-secret`)).status).toBe(404);
  });

  it('refuses a notify_url that is not http(s)', async () => {
    const refused = await stack.user.post('/workflows', { name: 'bad url', notify_url: 'ftp://example.com' });
    expect(refused).toMatchObject({ status: 422, body: { details: { field: 'notify_url' } } });
  });
});
