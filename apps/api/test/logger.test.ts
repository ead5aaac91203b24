import { Writable } from 'node:stream';
import { createLogger } from '../src/composition/logger';

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

describe('logged errors', () => {
  it('keep what failed and drop what was sent: database detail, where, parameters; quoted values blanked', () => {
    const lines: string[] = [];
    const logger = createLogger({ level: 'info', destination: new Writable({ write: (chunk, _e, done) => void (lines.push(String(chunk)), done()) }) });
    // The shape pg gives a DatabaseError, with TypeORM's wrapper around it.
    const driverError = Object.assign(new Error('invalid input syntax for type uuid: "sent-value-1"'), {
      severity: 'ERROR',
      code: '22P02',
      detail: 'Key (email)=(sent-value-2@example.com) already exists.',
      where: 'JSON data, line 1: {"note":"sent-value-3\\u0000...',
      hint: 'sent-value-4',
      routine: 'string_to_uuid',
      constraint: 'users_scope_email_key',
    });
    const wrapped = Object.assign(new Error('query failed'), { query: 'SELECT 1 WHERE id = $1', parameters: ['sent-value-5'], driverError });
    logger.error({ err: driverError }, 'unhandled error');
    logger.error({ err: wrapped }, 'unhandled error');
    logger.error({ err: new Error('plain "kept" message') }, 'other');
    const text = lines.join('');
    for (let i = 1; i <= 5; i += 1) expect(text).not.toContain(`sent-value-${i}`);
    for (const kept of ['22P02', 'string_to_uuid', 'users_scope_email_key', 'invalid input syntax for type uuid', 'SELECT 1 WHERE id = $1', 'plain \\"kept\\" message']) {
      expect(text).toContain(kept);
    }
    expect(driverError.detail).toContain('sent-value-2'); // the error itself is left as it was
  });
});
