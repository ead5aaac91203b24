import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';

// Chromium itself (path, launch, virtual authenticator) comes from the workspace's one harness,
// apps/api/test/browser/chromium.ts; this file keeps only what the demo adds: its screenshots.

/** Where the demo's screenshots go (gitignored). */
const SCREENSHOTS = join(__dirname, '..', 'screenshots');

export async function screenshot(page: Page, name: string): Promise<void> {
  await mkdir(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}
