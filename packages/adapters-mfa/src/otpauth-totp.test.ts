import { ReferenceTotp, totpAlgorithmContract } from '@svc/core/testing';
import { OtpauthTotp } from './otpauth-totp';
import { describeWithOathtool, oathtoolTotp } from './testing';

describeWithOathtool('TOTP against oathtool', () => {
  totpAlgorithmContract('otpauth', () => new OtpauthTotp(), oathtoolTotp);
  totpAlgorithmContract('core reference', () => new ReferenceTotp(), oathtoolTotp);
});

describe('OtpauthTotp', () => {
  it('throws on a secret that is not base32 (stored secrets are always our own)', () => {
    expect(() => new OtpauthTotp().matchStep({ secret: '!!!', code: '123456', at: new Date(), window: 1 })).toThrow();
  });
});
