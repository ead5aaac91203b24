import request from 'supertest';
import { MailDeliveryError } from '@svc/core';
import { createInMemoryDeps } from '@svc/core/testing';
import { admin, createProject } from './helpers';
import { buildEmailApp, createMailProject, MAGIC_URL, requestMagicLink, requestReset, verify } from './email-helpers';

describe('GET /admin/projects/{id}/environments/sandbox/outbox', () => {
  it('shows a mail asked for just before, although mail requests queue their mail after answering', async () => {
    const deps = createInMemoryDeps();
    // A slow lookup keeps the queued work running well after the request's answer.
    const findByEmail = deps.users.findByEmail.bind(deps.users);
    deps.users.findByEmail = async (...args) => {
      await new Promise((resolve) => setTimeout(resolve, 100));
      return findByEmail(...args);
    };
    const { app } = buildEmailApp({ deps });
    const project = await createMailProject(app);
    await requestMagicLink(app, project.sandbox, { email: 'soon@example.com' }).expect(200);
    const mails = (await admin(app).get(`/admin/projects/${project.id}/environments/sandbox/outbox?email=soon@example.com`).expect(200)).body.data.mails;
    expect(mails.map((mail: { template: string }) => mail.template)).toEqual(['magic_link']);
  });

  it('shows the latest mails to a sandbox address with their links, before and after sending', async () => {
    const { app, deliver, clock } = buildEmailApp();
    const project = await createMailProject(app);
    await requestMagicLink(app, project.sandbox, { email: 'E2E@example.com' }).expect(200);
    const path = `/admin/projects/${project.id}/environments/sandbox/outbox?email=e2e@example.com`;
    const queued = (await admin(app).get(path).expect(200)).body.data.mails;
    expect(queued).toEqual([
      {
        id: expect.any(String),
        to: 'e2e@example.com',
        template: 'magic_link',
        status: 'pending',
        attempts: 0,
        lastError: null,
        createdAt: expect.any(String),
        sentAt: null,
        subject: 'Your sign-in link for Mail project',
        links: [expect.stringMatching(/^https:\/\/app\.example\.test\/auth\/magic\?from=mail&token=ml_sbx_.+&project=/)],
        code: expect.stringMatching(/^\d{6}$/),
      },
    ]);
    await deliver();
    clock.advance(1);
    await requestReset(app, project.sandbox, 'e2e@example.com').expect(200);
    const [reset, magic] = (await admin(app).get(path).expect(200)).body.data.mails;
    expect([reset.template, reset.status, magic.template, magic.status]).toEqual(['password_reset', 'pending', 'magic_link', 'sent']);
    // Sent sandbox mails keep their (sealed) payload for this endpoint, and the link works.
    expect(magic.links).toEqual(queued[0].links);
    await verify(app, new URL(magic.links[0])).expect(200);
  });

  it('is sandbox only, needs the admin token and an e-mail, and 404s for unknown projects', async () => {
    const { app } = buildEmailApp();
    const project = await createMailProject(app);
    await requestMagicLink(app, project.live, { email: 'live@example.com' }).expect(200);
    const live = await admin(app).get(`/admin/projects/${project.id}/environments/production/outbox?email=live@example.com`).expect(404);
    expect(live.body.error).toBe('not_found');
    await request(app).get(`/admin/projects/${project.id}/environments/sandbox/outbox?email=a@example.com`).expect(401);
    expect((await admin(app).get(`/admin/projects/${project.id}/environments/sandbox/outbox`).expect(400)).body.error).toBe('validation_error');
    await admin(app).get('/admin/projects/7d7a1c4e-0c7e-4a39-9d3f-2f4b1c0d9e8a/environments/sandbox/outbox?email=a@example.com').expect(404);
    expect((await admin(app).get(`/admin/projects/${project.id}/environments/sandbox/outbox?email=live@example.com`).expect(200)).body.data.mails).toEqual([]);
  });
});

describe('GET /admin/projects/{id}/outbox/dead', () => {
  it('lists mails that were refused (after retries) or whose link expired first, without payloads', async () => {
    const { app, deliver, clock, mailer } = buildEmailApp();
    const project = await createMailProject(app);
    const other = await createProject(app);
    await requestMagicLink(app, project.live, { email: 'nobody@example.com' }).expect(200);
    const refusal = () => new MailDeliveryError('550 5.1.1 No such user', { permanent: true, responseCode: 550 });
    mailer.failNext(refusal(), refusal(), refusal());
    expect(await deliver()).toMatchObject({ retried: 1 });
    clock.advance(30);
    expect(await deliver()).toMatchObject({ retried: 1 });
    clock.advance(60);
    expect(await deliver()).toMatchObject({ dead: 1 });

    mailer.failAll();
    await requestMagicLink(app, project.sandbox, { email: 'slow@example.com' }).expect(200);
    for (let elapsed = 0; elapsed < 20 * 60; elapsed += 60) {
      await deliver();
      clock.advance(60);
    }
    const dead = (await admin(app).get(`/admin/projects/${project.id}/outbox/dead`).expect(200)).body.data.mails;
    expect(dead).toEqual([
      expect.objectContaining({ to: 'slow@example.com', environment: 'sandbox', status: 'dead', lastError: expect.stringMatching(/refused|expire/) }),
      expect.objectContaining({ to: 'nobody@example.com', environment: 'production', status: 'dead', attempts: 3, lastError: '550 5.1.1 No such user' }),
    ]);
    expect(JSON.stringify(dead)).not.toMatch(/ml_(live|sbx)_|sealed|payload|https?:/i);
    expect(JSON.stringify(dead)).not.toContain(MAGIC_URL);
    expect((await admin(app).get(`/admin/projects/${other.id}/outbox/dead`).expect(200)).body.data.mails).toEqual([]);
  });
});
