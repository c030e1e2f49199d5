import { randomBytes } from 'node:crypto';
import { Keyring, parseKeyring } from './keyring';
import { SecretBox, SecretBoxError } from './secret-box';

const key = (id: string) => ({ id, key: randomBytes(32) });

describe(SecretBox.name, () => {
  it('opens what it sealed, and the sealed text shows neither the secret nor the key', () => {
    const first = key('k1');
    const sut = new SecretBox(new Keyring([first]));
    const sealed = sut.seal('whsec_top-secret');
    expect(sealed).toMatch(/^sealed:v1:k1:/);
    expect(sealed).not.toContain('top-secret');
    expect(sut.open(sealed)).toBe('whsec_top-secret');
    expect(sut.seal('same')).not.toBe(sut.seal('same'));
  });

  it('opens values sealed with an older key after a rotation, and seals with the new one', () => {
    const [old, current] = [key('old'), key('new')];
    const sealedBefore = new SecretBox(new Keyring([old])).seal('s');
    const sut = new SecretBox(new Keyring([current, old]));
    expect(sut.open(sealedBefore)).toBe('s');
    expect(sut.seal('s')).toMatch(/^sealed:v1:new:/);
  });

  it('reveals a stored secret whether sealed or written plain before sealing began', () => {
    const sut = new SecretBox(new Keyring([key('k1')]));
    expect(sut.reveal(sut.seal('whsec_1'))).toBe('whsec_1');
    expect(sut.reveal('nsec_legacy')).toBe('nsec_legacy');
  });

  it('refuses an unknown key id, altered data and plain text', () => {
    const sut = new SecretBox(new Keyring([key('k1')]));
    expect(() => new SecretBox(new Keyring([key('k2')])).open(sut.seal('s'))).toThrow('not among the configured');
    const sealed = sut.seal('secret').split(':');
    sealed[5] = Buffer.from('tampered').toString('base64url');
    expect(() => sut.open(sealed.join(':'))).toThrow(SecretBoxError);
    expect(() => sut.open('plain')).toThrow('not a sealed value');
  });
});

describe(parseKeyring.name, () => {
  const b64 = () => randomBytes(32).toString('base64');

  it('reads id:key pairs, the first being the active one', () => {
    const sut = parseKeyring(`a:${b64()}, b:${b64()}`);
    expect(sut.active.id).toBe('a');
    expect(sut.find('b')?.key).toHaveLength(32);
  });

  it.each([
    ['', 'no key given'],
    ['nokey', 'expected id:base64key'],
    ['a:c2hvcnQ=', 'must be 32 bytes'],
    [`a:${Buffer.alloc(32).toString('base64')},a:${Buffer.alloc(32).toString('base64')}`, 'appears twice'],
  ])('refuses %j', (raw, message) => {
    expect(() => parseKeyring(raw)).toThrow(message);
  });
});
