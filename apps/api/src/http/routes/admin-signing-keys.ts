import { Router } from 'express';
import type { AppDeps } from '../app-deps';
import { scopeParam } from './params';

/** Admin API: rotate an environment's signing key and read its current public key (PEM). */
export function adminSigningKeyRoutes(deps: AppDeps): Router {
  const { admin } = deps.auth;
  return Router()
    .post('/projects/:id/environments/:env/signing-keys/rotate', async (req, res) => {
      res.json({ data: await admin.rotateSigningKey(await scopeParam(deps.auth, req)) });
    })
    .get('/projects/:id/environments/:env/public-key', async (req, res) => {
      res.json({ data: await admin.currentPublicKey(await scopeParam(deps.auth, req)) });
    });
}
