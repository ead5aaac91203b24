import type { Logger } from 'pino';
import type { Container } from './container';
import { demoProjectPath, readDemoProject, writeDemoProject, type ResolvedSecrets } from './dev-secrets';

/** The demo app as `SVC_API_KEY=<sandbox key> PROXY_STATIC_DIR=apps/demo pnpm start:proxy` serves it (PROXY_PORT's default). */
const DEMO_APP_URL = 'http://localhost:3001/';

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
    // Mail links open a page of the customer's app: here the demo app (apps/demo), where the
    // standalone proxy serves it by default, whose page signs in with a magic link's token and
    // sets the new password of a reset link's (apps/demo/README.md).
    const created = await container.auth.admin.createProject({ name: 'Demo project', plan: 'FREE', magicLinkUrl: DEMO_APP_URL, passwordResetUrl: DEMO_APP_URL });
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
