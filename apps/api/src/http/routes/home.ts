import { Router } from 'express';

/** Where a person who opens the API's address in a browser can go next. */
const LINKS: readonly { path: string; text: string }[] = [
  { path: '/api/docs', text: 'API reference (OpenAPI, browsable)' },
  { path: '/api/openapi.json', text: 'OpenAPI document' },
  { path: '/console', text: 'Admin console' },
  { path: '/healthz', text: 'Liveness: /healthz' },
  { path: '/readyz', text: 'Readiness: /readyz' },
];

/** Static: no input reaches it, so nothing needs escaping. No script, no style: the API's CSP allows neither inline. */
const PAGE = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>svc</title></head>
<body>
<h1>svc is running</h1>
<p>This is the authentication API. Applications call it with an API key; see the documentation.</p>
<ul>
${LINKS.map((link) => `<li><a href="${link.path.slice(1)}">${link.text}</a></li>`).join('\n')}
</ul>
</body>
</html>
`;

/**
 * GET / : a small page for a person who opened the API's address in a browser. Every other
 * unknown path stays a JSON 404. Relative links, so a mount under a path (createSvcServer's
 * handler in another app) keeps working when the page is reached with a trailing slash.
 */
export function homeRoutes(): Router {
  return Router().get('/', (_req, res) => {
    res.type('html').set('Cache-Control', 'no-cache').send(PAGE);
  });
}
