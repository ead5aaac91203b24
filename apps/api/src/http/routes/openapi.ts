import { dirname, join } from 'node:path';
import { Router, type NextFunction, type Response } from 'express';
import { AuthError } from '@svc/core';
import { OPENAPI_FILE, openApiJson } from '../openapi';

/** Files of the reference page: Swagger UI from node_modules (no CDN) and our own page and script. */
function docsAssets(): Record<string, string> {
  const swaggerUi = dirname(require.resolve('swagger-ui-dist/package.json'));
  const own = dirname(OPENAPI_FILE);
  return {
    'swagger-ui.css': join(swaggerUi, 'swagger-ui.css'),
    'swagger-ui-bundle.js': join(swaggerUi, 'swagger-ui-bundle.js'),
    'docs.js': join(own, 'docs.js'),
  };
}

/**
 * GET /api/openapi.json (the document, no key) and GET /api/docs (a page that renders it). The
 * page's script is a file of its own: the API's Content-Security-Policy allows no inline script.
 */
export function openApiRoutes(): Router {
  const assets = docsAssets();
  const page = join(dirname(OPENAPI_FILE), 'docs.html');
  return Router()
    .get('/api/openapi.json', (_req, res) => {
      res.set('Cache-Control', 'public, max-age=300').type('application/json').send(openApiJson());
    })
    .get('/api/docs', (_req, res, next) => {
      sendFixedFile(res.set('Cache-Control', 'public, max-age=300'), page, next);
    })
    .get('/api/docs/:asset', (req, res, next) => {
      const file = assets[String(req.params.asset)];
      if (file === undefined) throw new AuthError('not_found', 'No such file.');
      sendFixedFile(res.set('Cache-Control', 'public, max-age=3600'), file, next);
    });
}

/**
 * One of the files above, never a path from the request. `dotfiles: allow` because pnpm keeps
 * packages under `node_modules/.pnpm`, which `send` would otherwise refuse to serve from.
 */
function sendFixedFile(res: Response, file: string, next: NextFunction): void {
  res.sendFile(file, { dotfiles: 'allow' }, (error) => {
    if (error && !res.headersSent) next(new AuthError('not_found', 'No such file.'));
  });
}
