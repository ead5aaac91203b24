import { Writable } from 'node:stream';
import { createLogger } from '../src/logger';

describe('logger', () => {
  it('censors secret fields and headers wherever they appear', () => {
    const lines: string[] = [];
    const logger = createLogger({ level: 'info', destination: new Writable({ write: (chunk, _e, done) => void (lines.push(String(chunk)), done()) }) });
    logger.info({
      password: 'pw-top',
      body: { refreshToken: 'rt-nested', user: { password: 'pw-deep' } },
      headers: { authorization: 'Bearer at-header', 'x-api-key': 'svc_live_header', cookie: 'svc_rt=cookie-value', accept: 'application/json' },
      req: { headers: { authorization: 'Bearer at-req', 'x-api-key': 'svc_live_req' } },
      token: 'tok',
      err: { code: 'ECONNREFUSED' },
    });
    const line = lines.join('');
    for (const secret of ['pw-top', 'rt-nested', 'pw-deep', 'at-header', 'svc_live_header', 'cookie-value', 'at-req', 'svc_live_req', '"tok"']) {
      expect(line).not.toContain(secret);
    }
    expect(line).toContain('[redacted]');
    expect(line).toContain('application/json');
    expect(line).toContain('ECONNREFUSED');
  });
});
