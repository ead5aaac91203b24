import type { Logger } from 'pino';
import { isAppUrl } from '@svc/core';
import type { Container } from './container';
import { demoProjectPath, readDemoProject, writeDemoProject, type ResolvedSecrets } from './dev-secrets';

/**
 * What a person starting the embedded default needs to try the API (docs/operating.md#configuration): on the first
 * start with an empty database, a demo project whose keys are printed once and kept in
 * `<dataDir>/demo-project.json` (0600; one file per database, see demoProjectPath); on later starts, where to find them. Not in production:
 * there projects are made on purpose, with the CLI or the admin API.
 */
export async function announceFirstStart(container: Container, secrets: ResolvedSecrets, logger: Logger): Promise<void> {
  const { config, generated, files } = secrets;
  const lines: string[] = [];
  if (generated.adminToken) lines.push(`Admin token (stored in ${files.adminToken}): ${config.adminToken}`);
  else if (files.adminToken) logger.info({ file: files.adminToken }, 'admin token: see file');
  if (generated.masterKey) logger.info({ file: files.masterKey }, 'generated the master key; back it up with the database');
  if (!config.production && (await container.isEmpty())) {
    // Mail links need a page of the customer's app; the demo has none, so its links name a path
    // on this server that only carries the token (README, "E-mail": call verify with it). Only
    // where that is a URL a project may send users to (https, or http on localhost).
    const links = { magicLinkUrl: `${config.baseUrl}/demo/magic-link`, passwordResetUrl: `${config.baseUrl}/demo/reset-password` };
    const created = await container.auth.admin.createProject({ name: 'Demo project', plan: 'FREE', ...(isAppUrl(links.magicLinkUrl) ? links : {}) });
    const path = await writeDemoProject(
      config.dataDir,
      {
        projectId: created.project.id,
        apiKeys: created.apiKeys,
        createdAt: created.project.createdAt.toISOString(),
      },
      config.database,
    );
    lines.push(`Demo project ${created.project.id} (keys stored in ${path}):`, `  production key: ${created.apiKeys.production}`, `  sandbox key:    ${created.apiKeys.sandbox}`);
  } else if (await readDemoProject(config.dataDir, config.database)) {
    logger.info({ file: demoProjectPath(config.dataDir, config.database) }, 'demo project keys: see file');
  }
  // Printed to the terminal, not logged: log lines never carry secrets (docs/security.md), and these are
  // shown once, on the start that created them.
  if (lines.length > 0) process.stdout.write(`\n${lines.join('\n')}\n\n`);
}
