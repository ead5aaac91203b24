import { Router } from 'express';
import { AuthError, type OidcClient } from '@svc/core';
import type { AppDeps } from '../app-deps';
import { CreateOidcClientDto, ListOidcClientsQuery } from '../dto/oidc-dtos';
import { bodyOf, queryOf, validateBody, validateQuery } from '../middleware/validate';
import { idParam, projectNotFound } from './params';

const clientNotFound = () => new AuthError('not_found', 'OIDC client not found.');

/** A client as the admin API shows it: never its secret (shown once, at creation) nor its hash. */
function presentOidcClient(client: OidcClient) {
  const { clientId, environment, name, redirectUris, postLogoutRedirectUris } = client;
  return { clientId, environment, name, redirectUris, postLogoutRedirectUris, public: client.public, createdAt: client.createdAt.toISOString() };
}

/** Admin API: register, list and delete a project's OIDC clients (relying parties). */
export function adminOidcClientRoutes(deps: AppDeps): Router {
  const oidc = deps.oidc;
  if (!oidc) return Router();
  const { admin } = oidc.service;
  return Router()
    .post('/projects/:id/oidc-clients', validateBody(CreateOidcClientDto), async (req, res) => {
      const projectId = idParam(req.params.id, projectNotFound);
      const { client, clientSecret } = await admin.registerClient(projectId, bodyOf(res, CreateOidcClientDto));
      res.status(201).json({ data: { clientId: client.clientId, ...(clientSecret ? { clientSecret } : {}) } });
    })
    .get('/projects/:id/oidc-clients', validateQuery(ListOidcClientsQuery, { refuseUnknown: true }), async (req, res) => {
      const clients = await admin.listClients(idParam(req.params.id, projectNotFound), queryOf(res, ListOidcClientsQuery).environment);
      res.json({ data: { clients: clients.map(presentOidcClient) } });
    })
    .delete('/projects/:id/oidc-clients/:clientId', async (req, res) => {
      await admin.deleteClient(idParam(req.params.id, projectNotFound), idParam(req.params.clientId, clientNotFound));
      res.json({ data: { success: true } });
    });
}
