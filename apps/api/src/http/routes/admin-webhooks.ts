import { Router, type Request } from 'express';
import type { AppDeps } from '../app-deps';
import { CreateWebhookDto, RedeliverRangeDto, UpdateWebhookDto, WebhookMessagesQuery } from '../dto/webhook-dtos';
import { bodyOf, queryOf, validateBody, validateQuery } from '../middleware/validate';
import { presentWebhookAttempt, presentWebhookEndpoint, presentWebhookMessage } from '../webhook-presenters';
import { scopeParam } from './params';

const param = (req: Request, name: string) => String(req.params[name]);

/** Webhook endpoints of one project environment, their delivery log, test deliveries and redeliveries. */
export function adminWebhookRoutes(deps: AppDeps): Router {
  const { admin } = deps.auth;
  const base = '/projects/:id/environments/:env/webhooks';
  const scope = (req: Request) => scopeParam(deps.auth, req);
  return Router()
    .post(base, validateBody(CreateWebhookDto), async (req, res) => {
      const { endpoint, secret } = await admin.createWebhookEndpoint(await scope(req), bodyOf(res, CreateWebhookDto));
      res.status(201).json({ data: { endpoint: presentWebhookEndpoint(endpoint), secret } });
    })
    .get(base, async (req, res) => {
      res.json({ data: { endpoints: (await admin.listWebhookEndpoints(await scope(req))).map(presentWebhookEndpoint) } });
    })
    .get(`${base}/messages/:messageId`, async (req, res) => {
      const { message, attempts } = await admin.getWebhookMessage(await scope(req), param(req, 'messageId'));
      res.json({ data: { message: presentWebhookMessage(message), attempts: attempts.map(presentWebhookAttempt) } });
    })
    .post(`${base}/messages/:messageId/redeliver`, async (req, res) => {
      await admin.redeliverWebhook(await scope(req), param(req, 'messageId'));
      res.status(202).json({ data: { success: true } });
    })
    .get(`${base}/:webhookId`, async (req, res) => {
      res.json({ data: { endpoint: presentWebhookEndpoint(await admin.getWebhookEndpoint(await scope(req), param(req, 'webhookId'))) } });
    })
    .patch(`${base}/:webhookId`, validateBody(UpdateWebhookDto), async (req, res) => {
      const endpoint = await admin.updateWebhookEndpoint(await scope(req), param(req, 'webhookId'), bodyOf(res, UpdateWebhookDto));
      res.json({ data: { endpoint: presentWebhookEndpoint(endpoint) } });
    })
    .delete(`${base}/:webhookId`, async (req, res) => {
      await admin.deleteWebhookEndpoint(await scope(req), param(req, 'webhookId'));
      res.json({ data: { success: true } });
    })
    .post(`${base}/:webhookId/rotate-secret`, async (req, res) => {
      res.json({ data: await admin.rotateWebhookSecret(await scope(req), param(req, 'webhookId')) });
    })
    .post(`${base}/:webhookId/redeliver`, validateBody(RedeliverRangeDto), async (req, res) => {
      const { from, to } = bodyOf(res, RedeliverRangeDto);
      res.status(202).json({ data: await admin.redeliverWebhookRange(await scope(req), param(req, 'webhookId'), { from: new Date(from), to: new Date(to) }) });
    })
    .post(`${base}/:webhookId/test`, async (req, res) => {
      res.status(202).json({ data: { message: presentWebhookMessage(await admin.testWebhookEndpoint(await scope(req), param(req, 'webhookId'))) } });
    })
    .get(`${base}/:webhookId/messages`, validateQuery(WebhookMessagesQuery), async (req, res) => {
      const messages = await admin.listWebhookMessages(await scope(req), param(req, 'webhookId'), queryOf(res, WebhookMessagesQuery).limit);
      res.json({ data: { messages: messages.map(presentWebhookMessage) } });
    });
}
