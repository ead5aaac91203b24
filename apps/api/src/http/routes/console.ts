import { existsSync } from 'node:fs';
import { join } from 'node:path';
import express, { Router, type RequestHandler } from 'express';
import { AuthError } from '@svc/core';
import type { AppDeps } from '../app-deps';
import { consoleCookieOf, sameText, setConsoleCookie, type ConsoleSession, type ConsoleSessions } from '../console-session';
import { ConsoleSignInDto } from '../dto/admin-dtos';
import { requireAdminOrConsole } from '../middleware/admin-auth';
import { bodyOf, validateBody } from '../middleware/validate';
import { limited } from './guards';

/**
 * Where the console's built files are (apps/console/build.mjs writes them to the package's
 * `console/` folder, shipped beside `openapi/`), or null when it was not built. The sources run
 * from `src/http/routes/`, the bundle from `dist/`.
 */
export function consoleAssetsDir(): string | null {
  const candidates = [join(__dirname, '..', '..', '..', 'console'), join(__dirname, '..', 'console')];
  return candidates.find((dir) => existsSync(join(dir, 'index.html'))) ?? null;
}

/**
 * The admin console (docs/console.md): its sign-in and sign-out under /console/api/session, and
 * its page and bundle under /console, same origin as the admin API it calls with its session.
 */
export function consoleRoutes(deps: AppDeps, sessions: ConsoleSessions, assets = consoleAssetsDir()): Router {
  const router = Router()
    .post('/console/api/session', limited(deps, 'consoleSignIn'), validateBody(ConsoleSignInDto), (req, res) => {
      if (!sameText(bodyOf(res, ConsoleSignInDto).token, deps.config.adminToken)) throw new AuthError('unauthorized', 'The admin token is not right.');
      const { cookie, session } = sessions.issue(new Date());
      setConsoleCookie(req, res, cookie);
      res.set('Cache-Control', 'no-store').json({ data: presentSession(session) });
    })
    .get('/console/api/session', limited(deps, 'admin'), async (req, res) => {
      const session = await sessions.read(consoleCookieOf(req), new Date());
      if (!session) throw new AuthError('unauthorized');
      res.set('Cache-Control', 'no-store').json({ data: presentSession(session) });
    })
    .delete('/console/api/session', limited(deps, 'admin'), requireAdminOrConsole(deps.config.adminToken, sessions), async (req, res) => {
      // Signed in with the admin token instead, there is no session to end.
      const session = res.locals.consoleSession as ConsoleSession | undefined;
      if (session) await sessions.end(session);
      setConsoleCookie(req, res, null);
      res.json({ data: { success: true } });
    });
  if (!assets) {
    return router.get(['/console', '/console/*rest'], () => {
      throw new AuthError('not_found', 'The console is not built: run `node apps/console/build.mjs` (pnpm start does it).');
    });
  }
  return (
    router
      .use('/console', noCache, express.static(assets, { index: false, fallthrough: true, redirect: false }))
      // Every other page of the console is the app itself, which routes in the browser.
      .get(['/console', '/console/*rest'], noCache, (req, res, next) => {
        if (req.path.startsWith('/console/api/')) return next();
        res.sendFile(join(assets, 'index.html'));
      })
  );
}

function presentSession(session: { expiresAt: Date; csrfToken: string }) {
  return { csrfToken: session.csrfToken, expiresAt: session.expiresAt.toISOString() };
}

/** The console is a few files that change with each release: always revalidated, never stale. */
const noCache: RequestHandler = (_req, res, next) => {
  res.set('Cache-Control', 'no-cache');
  next();
};
