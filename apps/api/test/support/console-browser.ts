import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { consoleAssetsDir } from '../../src/http/routes/console';
import { REAL_ADMIN_TOKEN } from './real-app';

// What the console's Chromium tests share: the bundle built from the sources, the axe-core check
// and screenshot of a screen, and a signed-in browser context.

const SHOTS = join(__dirname, '..', '..', 'test-output', 'console');
const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
type Json = Record<string, any>;
// What the functions passed to page.evaluate read: they run in the page, not in Node.
declare const document: any;

/** Builds the console from `apps/console/src` (never a stale bundle) and makes the screenshot folder. */
export function buildConsole(): void {
  execFileSync(process.execPath, [join(__dirname, '..', '..', '..', 'console', 'build.mjs')]);
  if (!consoleAssetsDir()) throw new Error('the console bundle was not written');
  mkdirSync(SHOTS, { recursive: true });
}

/** Serious or critical axe-core violations of the page as it is now (WCAG 2.x A and AA rules). */
async function seriousViolations(page: Page): Promise<string[]> {
  // Evaluated through the DevTools protocol, so the console's CSP (script-src 'self') allows it.
  await page.evaluate(AXE_SOURCE);
  const result = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(context: unknown, options: unknown): Promise<Json> } }).axe;
    return axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] } });
  });
  return (result.violations as Json[])
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.help} (${(v.nodes as Json[]).map((n) => n.target.join(' ')).join(', ')})`);
}

/** Screenshot of the screen (apps/api/test-output/console/), and no serious accessibility violation on it. */
export async function checkScreen(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
  expect({ screen: name, violations: await seriousViolations(page) }).toEqual({ screen: name, violations: [] });
}

/** A new browser context signed in to the console at `origin`, on the project list; `failures` collects page errors. */
export async function signedInConsole(browser: Browser, origin: string, viewport = { width: 1280, height: 900 }) {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  const failures: string[] = [];
  page.on('pageerror', (error) => failures.push(error.message));
  page.on('requestfailed', (req) => failures.push(`${req.url()} ${req.failure()?.errorText}`));
  await page.goto(`${origin}/console`);
  await page.getByLabel('Admin token').fill(REAL_ADMIN_TOKEN);
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { name: 'Projects' }).first().waitFor();
  return { context, page, failures };
}

/**
 * Calls to the API beside the browser: as the operator (admin token) and with a project's API key.
 * `origin` is read at each call (suites set it in beforeAll).
 */
export function apiCalls(origin: () => string) {
  const adminCall = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${origin()}${path}`, {
      method,
      headers: { Authorization: `Bearer ${REAL_ADMIN_TOKEN}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: res.status, body: (await res.json()) as Json };
  };
  const keyCall = (key: string, path: string, body: unknown) =>
    fetch(`${origin()}${path}`, { method: 'POST', headers: { 'X-API-Key': key, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  return { adminCall, keyCall };
}
