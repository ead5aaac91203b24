// The SDK from an ES module: sign up, sign in, verify the access token against the JWKS.
// Environment: SVC_API_KEY, SVC_API_URL, SVC_PROJECT_ID, SVC_EMAIL. Prints the verified claims.
import { createSvcClient, isTwoFactorChallenge, verifyAccessToken } from '@svc/sdk';
import { undiciRequester } from '@svc/sdk/node';

const { SVC_API_KEY: apiKey, SVC_API_URL: baseUrl, SVC_PROJECT_ID: projectId, SVC_EMAIL: email } = process.env;
const svc = createSvcClient({ apiKey, baseUrl, request: undiciRequester() });
const password = 'correct horse battery';
await svc.signup({ email, password });
const result = await svc.login({ email, password });
if (isTwoFactorChallenge(result)) throw new Error('unexpected second-factor challenge');
const jwksUrl = `${baseUrl}/api/projects/${projectId}/sandbox/jwks.json`;
const claims = await verifyAccessToken(result.accessToken, { jwksUrl }, { projectId, environment: 'sandbox', issuer: baseUrl });
const forged = await verifyAccessToken(`${result.accessToken.slice(0, -4)}AAAA`, { jwksUrl }, { projectId, environment: 'sandbox' }).catch((error) => error.code);
console.log(JSON.stringify({ claims, userId: result.user.id, forged }));
