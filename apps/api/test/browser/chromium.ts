import { existsSync } from 'node:fs';
import { describeWhenAvailable } from '@svc/core/testing';
import { chromium, type Browser, type Page } from 'playwright-core';

// The one Chromium harness of the workspace: apps/api's passkey tests and apps/demo's tests use it.
// Browser tests drive Debian's Chromium (apt-get install chromium), never a downloaded build.
const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

// Headless as root in CI; the network flags keep Chromium from calling home on a closed network;
// /dev/shm is small in containers, so shared memory goes to /tmp.
const FLAGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic', '--disable-dev-shm-usage'];

/**
 * `describe` for suites that need Chromium. Missing: with CI=true the suite fails, otherwise it
 * is skipped with a loud warning (as the PostgreSQL suites do; docs/architecture.md#tests).
 */
export function describeWithChromium(name: string, body: () => void): void {
  const missing = existsSync(CHROMIUM_PATH) ? null : `no executable at ${CHROMIUM_PATH} (apt-get install chromium)`;
  describeWhenAvailable(name, 'Chromium', missing, body);
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: FLAGS });
}

/**
 * Gives the page Chromium's virtual authenticator (CDP WebAuthn domain): a CTAP2 platform
 * authenticator with resident keys and user verification that always succeeds, like a phone or
 * laptop with a fingerprint reader. Its credentials live as long as the page.
 */
export async function addVirtualAuthenticator(page: Page): Promise<{ authenticatorId: string }> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable', { enableUI: false });
  return cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
}
