import { randomBytes } from 'node:crypto';
import type { Payload } from '@temporalio/common';
import { Keyring } from './keyring';
import {
  ENCRYPTED_ENCODING,
  isEncryptedPayload,
  PayloadCipher,
  PayloadCipherError,
  payloadKeyId,
  payloadWorkflowId,
  WORKFLOW_ID_METADATA,
} from './payload-cipher';

const key = (id: string) => ({ id, key: randomBytes(32) });
const json = (value: unknown): Payload => ({ metadata: { encoding: Buffer.from('json/plain') }, data: Buffer.from(JSON.stringify(value)) });
const text = (payload: Payload) => Buffer.from(payload.data!).toString('utf8');
const context = (workflowId: string) => ({ type: 'workflow' as const, namespace: 'default', workflowId });

describe(PayloadCipher.name, () => {
  it('encrypts every payload under the active key and the workflow of its context, and decrypts it whole', async () => {
    const sut = new PayloadCipher(new Keyring([key('k1')]));
    const original = json({ prompt: 'secret prompt' });
    const [sealed] = await sut.encode([original], context('run-1'));
    expect(isEncryptedPayload(sealed)).toBe(true);
    expect(Buffer.from(sealed.metadata!.encoding).toString()).toBe(ENCRYPTED_ENCODING);
    expect([payloadKeyId(sealed), payloadWorkflowId(sealed)]).toEqual(['k1', 'run-1']);
    expect(Buffer.from(sealed.data!).toString('latin1')).not.toContain('secret prompt');
    const [opened] = await sut.decode([sealed]);
    expect(text(opened)).toBe(text(original));
    expect(Buffer.from(opened.metadata!.encoding).toString()).toBe('json/plain');
  });

  it('decrypts what an older key encrypted once a new key is put in front, and encrypts with the new one', async () => {
    const [older, newer] = [key('a'), key('b')];
    const [before] = await new PayloadCipher(new Keyring([older])).encode([json('written under a')], context('run-1'));
    const sut = new PayloadCipher(new Keyring([newer, older]));
    expect(text((await sut.decode([before]))[0])).toBe('"written under a"');
    expect(payloadKeyId((await sut.encode([json('x')], context('run-1')))[0])).toBe('b');
  });

  it('passes unencrypted payloads through decode (histories from before encryption) and never encrypts twice', async () => {
    const sut = new PayloadCipher(new Keyring([key('k1')]));
    const plain = json({ old: true });
    expect(await sut.decode([plain])).toEqual([plain]);
    const [sealed] = await sut.encode([plain], context('run-1'));
    expect(await sut.encode([sealed], context('run-1'))).toEqual([sealed]);
  });

  it('encrypts a payload without context with no workflow id', async () => {
    const sut = new PayloadCipher(new Keyring([key('k1')]));
    const [sealed] = await sut.encode([json(1)]);
    expect(payloadWorkflowId(sealed)).toBeNull();
    expect(text((await sut.decode([sealed]))[0])).toBe('1');
  });

  it('refuses a payload relabelled with another workflow, altered data, or an unknown key', async () => {
    const sut = new PayloadCipher(new Keyring([key('k1')]));
    const [sealed] = await sut.encode([json('mine')], context('run-1'));
    const relabelled = { ...sealed, metadata: { ...sealed.metadata, [WORKFLOW_ID_METADATA]: Buffer.from('run-2') } };
    expect(() => sut.open(relabelled)).toThrow(PayloadCipherError);
    const altered = Buffer.from(sealed.data!);
    altered[20] ^= 1;
    expect(() => sut.open({ ...sealed, data: altered })).toThrow('does not decrypt');
    expect(() => new PayloadCipher(new Keyring([key('k2')])).open(sealed)).toThrow('key "k1", which is not among the configured');
  });
});
