// The import line of README.md and docs/integration.md, exactly, in an ES module.
import { createSvcClient, isTwoFactorChallenge, SvcError } from '@svc/sdk';

const svc = createSvcClient({ apiKey: 'svc_sbx_example', baseUrl: 'http://127.0.0.1:9' });
const challenge = isTwoFactorChallenge({ twoFactorRequired: true, twoFactorToken: 't', methods: ['totp'] });
console.log(JSON.stringify({ baseUrl: svc.baseUrl, challenge, svcError: new SvcError('invalid_token', 401, 'x') instanceof Error }));
