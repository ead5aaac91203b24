import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describeWhenAvailable } from '@svc/core/testing';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

/** Where the demo's screenshots go (gitignored). */
export const SCREENSHOTS = join(__dirname, '..', 'screenshots');

// Debian's Chromium (apt-get install chromium), never a downloaded build (docs/architecture.md#tests).
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * `describe` for suites that need Chromium. Missing: with CI=true the suite fails, otherwise it
 * is skipped with a loud warning, as the PostgreSQL, Redis and apps/api browser suites do.
 */
export function describeWithChromium(name: string, body: () => void): void {
  const missing = existsSync(CHROMIUM_PATH) ? null : `no executable at ${CHROMIUM_PATH} (apt-get install chromium)`;
  describeWhenAvailable(name, 'Chromium', missing, body);
}

/** Headless, as root in CI; the network flags keep Chromium from calling home. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic', '--disable-dev-shm-usage'],
  });
}

/**
 * Gives the page a platform authenticator through the DevTools protocol (WebAuthn domain):
 * CTAP2, internal transport, resident keys and user verification that always succeeds, i.e. a
 * passkey on "this device" whose owner always passes the fingerprint check.
 */
export async function addVirtualAuthenticator(context: BrowserContext, page: Page): Promise<void> {
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable', { enableUI: false });
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
  });
}

export async function screenshot(page: Page, name: string): Promise<void> {
  await mkdir(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}
