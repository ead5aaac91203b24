import { clientFingerprints, isDeviceId } from '../src/domain/known-device';

const scope = { projectId: '11111111-1111-4111-8111-111111111111', environment: 'production' as const };
const USER = '22222222-2222-4222-8222-222222222222';
const OTHER = '33333333-3333-4333-8333-333333333333';

describe('known clients', () => {
  it('device ids are 1-128 printable ASCII characters without spaces', () => {
    for (const good of ['d', 'dev-1', 'x'.repeat(128), 'a~!{}|']) expect(isDeviceId(good)).toBe(true);
    for (const bad of ['', 'x'.repeat(129), 'has space', 'tab\t', 'é', 'nul\u0000', 42, undefined]) expect(isDeviceId(bad)).toBe(false);
  });

  it('stores neither address nor device id, and a fingerprint means nothing for another user or tenant', () => {
    const client = { address: '198.51.100.7', deviceId: 'device-abc' };
    const mine = clientFingerprints(scope, USER, client);
    expect(mine).toHaveLength(2);
    for (const fingerprint of mine) {
      expect(fingerprint).toMatch(/^[0-9a-f]{64}$/);
      expect(fingerprint).not.toContain('198.51.100.7');
    }
    const theirs = clientFingerprints(scope, OTHER, client);
    const sandbox = clientFingerprints({ ...scope, environment: 'sandbox' }, USER, client);
    expect(new Set([...mine, ...theirs, ...sandbox]).size).toBe(6);
    // The same value as address and as device id is two different things.
    const [asAddress] = clientFingerprints(scope, USER, { address: 'same' });
    const [asDevice] = clientFingerprints(scope, USER, { deviceId: 'same' });
    expect(asAddress).not.toBe(asDevice);
  });

  it('an unusable device id, or no client at all, gives no fingerprint', () => {
    expect(clientFingerprints(scope, USER, { deviceId: 'x'.repeat(200) })).toEqual([]);
    expect(clientFingerprints(scope, USER, {})).toEqual([]);
  });
});
