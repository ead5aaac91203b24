// The SDK from CommonJS (it loads the ESM-only jose with import()): the same as sdk-verify.mjs.
const { createSvcClient, isTwoFactorChallenge, verifyAccessToken } = require('@svc/sdk');

async function main() {
  const { SVC_API_KEY: apiKey, SVC_API_URL: baseUrl, SVC_PROJECT_ID: projectId, SVC_EMAIL: email } = process.env;
  const svc = createSvcClient({ apiKey, baseUrl });
  const password = 'correct horse battery';
  await svc.signup({ email, password });
  const result = await svc.login({ email, password });
  if (isTwoFactorChallenge(result)) throw new Error('unexpected second-factor challenge');
  const jwksUrl = `${baseUrl}/api/projects/${projectId}/sandbox/jwks.json`;
  const claims = await verifyAccessToken(result.accessToken, { jwksUrl }, { projectId, environment: 'sandbox', issuer: baseUrl });
  const forged = await verifyAccessToken(`${result.accessToken.slice(0, -4)}AAAA`, { jwksUrl }, { projectId, environment: 'sandbox' }).catch((error) => error.code);
  console.log(JSON.stringify({ claims, userId: result.user.id, forged }));
}
main().catch((error) => {
  console.error(error);
  process.exit(1);
});
