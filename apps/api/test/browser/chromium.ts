import { existsSync } from 'node:fs';
import { describeWhenAvailable } from '@svc/core/testing';
import { chromium, type Browser, type Page } from 'playwright-core';

// Browser tests drive Debian's Chromium (apt-get install chromium), never a downloaded build.
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

// Headless as root in CI; the network flags keep Chromium from calling home on a closed network.
const FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

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
