import { parseArgs } from 'node:util';
import { AuthError, environmentMessage, isEnvironment, type AuthService, type Environment, type PurgeCounts } from '@svc/core';
import { ConfigError, loadConfig, StartupError } from '../composition/config';
import { buildContainer } from '../composition/container';
import { resolveSecrets } from '../composition/dev-secrets';
import { CreateProjectDto, CreateUserDto, ListProjectsQuery, ListUsersQuery, UpdateUserDto, settingsOf } from '../http/dto/admin-dtos';
import { presentUserDetail } from '../http/admin-presenters';
import { errorBody } from '../http/http-errors';
import { validateInput } from '../http/middleware/validate';
import { presentAdminUser, presentAuditEntry, presentProject } from '../http/presenters';
import { idParam, projectNotFound } from '../http/routes/params';
import { migratorFromEnvironment, runMigrateCommand, type Migrator } from './migrate-command';
import { runService } from '../composition/run-service';
import type { CliIo } from './cli-io';
import { AuditLogQuery, auditQueryOf } from '../http/dto/audit-dtos';
import { StatsQuery } from '../http/dto/stats-dtos';
import { runAs } from '../http/request-context';

export const USAGE = `Usage: svc <command> [arguments]
       (in a checkout of the repository: pnpm svc <command> [arguments])

Commands:
  start                run the service, as \`pnpm start\` does: listens on PORT (embedded SQLite by
                       default, or DATABASE_URL / REDIS_URL / SMTP_URL) until SIGTERM or SIGINT
  project:create --name <name> [--plan FREE|SOLO|PRO]
  project:list [--q <text>] [--limit <n>] [--cursor <c>]
  project:show <projectId>
  project:delete <projectId>   deletes the project with all its users, keys and data
  api-key:create <projectId> <production|sandbox>
  api-key:revoke <projectId> <keyId>
  signing-key:rotate <projectId> <production|sandbox>
  users:list <projectId> <production|sandbox> [--email <e-mail>] [--q <text>] [--limit <n>] [--cursor <c>]
  users:show <projectId> <production|sandbox> <userId>
  users:create <projectId> <production|sandbox> --email <e-mail> [--password <p>] [--role <r>] [--meta <json>] [--verified true|false]
  users:update <projectId> <production|sandbox> <userId> [--role <r>] [--meta <json>] [--verified true|false]
  users:revoke-session <projectId> <production|sandbox> <userId> <sessionId>
  users:revoke-all-sessions <projectId> <production|sandbox> <userId>
  users:ban <projectId> <production|sandbox> <userId>
  users:unban <projectId> <production|sandbox> <userId>
  users:delete <projectId> <production|sandbox> <userId>
  audit-log <projectId> <production|sandbox> [--type <event type>] [--user-id <id>] [--from <ISO time>]
            [--to <ISO time>] [--limit <n>] [--cursor <c>]
                       the audit log, newest first, as GET .../audit-log answers it
  stats <projectId> <production|sandbox> [--days <1-90>]
                       sign-ins, sign-ups, refused sign-ins and rate-limited requests per UTC day
                       (default 14 days), as GET .../stats answers it; a running API stores its
                       rate-limited count every 15 seconds
  migrate [--check]    run pending database migrations and list them; with --check only list
                       them (exit 1 while any is pending, 0 when up to date; changes nothing)
  purge                delete what nobody can use any more (expired or revoked sessions and refresh
                       tokens, expired one-time tokens, sent and dead mails older than 7 days,
                       expired OIDC provider artifacts, known devices unseen for 90 days, audit
                       entries past their project's retention, finished webhook messages older
                       than 7 days, hourly rate-limited counts older than 90 days), as
                       the API's janitor does every
                       SVC_PURGE_INTERVAL_SECONDS; prints the counts
  help

Output is JSON on stdout; errors are JSON on stderr (exit 1); usage errors exit 2.
Configuration comes from the same environment variables as the API (DATABASE_URL, SVC_DATA_DIR, ...).
`;

type Options = {
  name?: string;
  plan?: string;
  email?: string;
  q?: string;
  limit?: string;
  cursor?: string;
  check?: boolean;
  password?: string;
  role?: string;
  meta?: string;
  verified?: string;
  type?: string;
  'user-id'?: string;
  from?: string;
  to?: string;
  days?: string;
};

/** What a command may use: the use cases, and the container's purge (it covers the OIDC artifacts too). */
export interface CliServices {
  auth: AuthService;
  purge(): Promise<PurgeCounts>;
  close(): Promise<void>;
}

interface Command {
  /** Number of positional arguments after the command name. */
  arity: number;
  run(auth: AuthService, args: string[], options: Options, services: CliServices): Promise<unknown>;
}

const userNotFound = () => new AuthError('user_not_found');
const projectId = (value: string) => idParam(value, projectNotFound);

/** Each command calls the same use cases as the admin API and shows the same shapes. */
const COMMANDS: Record<string, Command> = {
  'project:create': {
    arity: 0,
    run: async (auth, _args, options) => {
      const body = await validateInput(CreateProjectDto, { name: options.name, ...(options.plan ? { plan: options.plan } : {}) }, 'The options');
      const created = await auth.admin.createProject({ ...settingsOf(body), name: body.name });
      return { project: presentProject(created.project), apiKeys: created.apiKeys, publicKeys: created.publicKeys };
    },
  },
  'project:show': { arity: 1, run: async (auth, [id]) => ({ project: presentProject(await auth.admin.getProject(projectId(id))) }) },
  'project:list': {
    arity: 0,
    run: async (auth, _args, options) => {
      const query = await validateInput(ListProjectsQuery, defined({ q: options.q, limit: options.limit, cursor: options.cursor }), 'The options');
      const page = await auth.admin.listProjects({ ...query });
      return { projects: page.projects.map(presentProject), nextCursor: page.nextCursor };
    },
  },
  'project:delete': {
    arity: 1,
    run: async (auth, [id]) => {
      await auth.admin.deleteProject(projectId(id));
      return { success: true };
    },
  },
  'api-key:create': { arity: 2, run: (auth, [id, env]) => auth.admin.createApiKey(projectId(id), environment(env)) },
  'api-key:revoke': {
    arity: 2,
    run: async (auth, [id, keyId]) => {
      await auth.admin.revokeApiKey(
        projectId(id),
        idParam(keyId, () => new AuthError('not_found', 'API key not found.')),
      );
      return { success: true };
    },
  },
  'signing-key:rotate': { arity: 2, run: async (auth, [id, env]) => auth.admin.rotateSigningKey(await scope(auth, id, env)) },
  'users:list': {
    arity: 2,
    run: async (auth, [id, env], options) => {
      const query = await validateInput(ListUsersQuery, defined({ email: options.email, q: options.q, limit: options.limit, cursor: options.cursor }), 'The options');
      const page = await auth.admin.listUsers(await scope(auth, id, env), { ...query });
      return { users: page.users.map(presentAdminUser), nextCursor: page.nextCursor, total: page.total };
    },
  },
  'users:show': {
    arity: 3,
    run: async (auth, [id, env, userId]) => ({ user: presentUserDetail(await auth.admin.getUser(await scope(auth, id, env), idParam(userId, userNotFound))) }),
  },
  'users:create': {
    arity: 2,
    run: async (auth, [id, env], options) => {
      const fields = { email: options.email, password: options.password, role: options.role, meta: jsonOption(options.meta), emailVerified: flag(options.verified) };
      const body = await validateInput(CreateUserDto, defined(fields), 'The options');
      const tenant = await scope(auth, id, env);
      const user = await auth.admin.createUser(tenant, await auth.admin.getProject(tenant.projectId), body);
      return { user: presentAdminUser(user) };
    },
  },
  'users:update': {
    arity: 3,
    run: async (auth, [id, env, userId], options) => {
      const body = await validateInput(UpdateUserDto, defined({ role: options.role, meta: jsonOption(options.meta), emailVerified: flag(options.verified) }), 'The options');
      return { user: presentAdminUser(await auth.admin.updateUser(await scope(auth, id, env), idParam(userId, userNotFound), body)) };
    },
  },
  'users:revoke-session': {
    arity: 4,
    run: async (auth, [id, env, userId, sessionId]) => {
      const sessionNotFound = () => new AuthError('not_found', 'Session not found.');
      await auth.admin.revokeUserSession(await scope(auth, id, env), idParam(userId, userNotFound), idParam(sessionId, sessionNotFound));
      return { success: true };
    },
  },
  'users:revoke-all-sessions': {
    arity: 3,
    run: async (auth, [id, env, userId]) => auth.admin.revokeAllUserSessions(await scope(auth, id, env), idParam(userId, userNotFound)),
  },
  'users:ban': userCommand((auth, tenant, userId) => auth.admin.banUser(tenant, userId)),
  'users:unban': userCommand((auth, tenant, userId) => auth.admin.unbanUser(tenant, userId)),
  'users:delete': userCommand((auth, tenant, userId) => auth.admin.deleteUser(tenant, userId)),
  'audit-log': {
    arity: 2,
    run: async (auth, [id, env], options) => {
      const { type, 'user-id': userId, from, to, limit, cursor } = options;
      const query = await validateInput(AuditLogQuery, { type, userId, from, to, limit, cursor }, 'The options');
      const page = await auth.admin.auditLog(await scope(auth, id, env), auditQueryOf(query));
      return { entries: page.entries.map(presentAuditEntry), nextCursor: page.nextCursor };
    },
  },
  stats: {
    arity: 2,
    run: async (auth, [id, env], options) => {
      const query = await validateInput(StatsQuery, defined({ days: options.days }), 'The options');
      return auth.admin.activityStats(await scope(auth, id, env), { days: query.days });
    },
  },
  purge: { arity: 0, run: async (_auth, _args, _options, services) => ({ purged: await services.purge() }) },
};

function userCommand(act: (auth: AuthService, tenant: { projectId: string; environment: Environment }, userId: string) => Promise<void>): Command {
  return {
    arity: 3,
    run: async (auth, [id, env, userId]) => {
      await act(auth, await scope(auth, id, env), idParam(userId, userNotFound));
      return { success: true };
    },
  };
}

/** Only the options that were given: an absent option is not sent as `undefined`. */
function defined(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
}

/** `--verified true|false` as a boolean; any other text is passed on for the DTO to refuse. */
function flag(text: string | undefined): boolean | string | undefined {
  return text === 'true' ? true : text === 'false' ? false : text;
}

/** `--meta` as JSON; text that does not parse is a validation_error, as in a request body. */
function jsonOption(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw new AuthError('validation_error', 'meta must be JSON text (an object).');
  }
}

function environment(value: string): Environment {
  if (!isEnvironment(value)) throw new AuthError('validation_error', environmentMessage('environment'));
  return value;
}

/** Like the admin API: an unknown project is not_found before any user lookup. */
async function scope(auth: AuthService, id: string, env: string) {
  const tenant = { projectId: projectId(id), environment: environment(env) };
  await auth.admin.getProject(tenant.projectId);
  return tenant;
}

/**
 * Runs one command and answers the exit code. `openAuth` is called only for a valid command, so
 * `help` and usage errors never touch the database.
 */
export async function runCli(argv: string[], io: CliIo, openAuth: () => Promise<CliServices>, openMigrator: () => Migrator = migratorFromEnvironment): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        name: { type: 'string' },
        plan: { type: 'string' },
        email: { type: 'string' },
        q: { type: 'string' },
        password: { type: 'string' },
        role: { type: 'string' },
        meta: { type: 'string' },
        verified: { type: 'string' },
        limit: { type: 'string' },
        cursor: { type: 'string' },
        check: { type: 'boolean' },
        type: { type: 'string' },
        'user-id': { type: 'string' },
        from: { type: 'string' },
        to: { type: 'string' },
        days: { type: 'string' },
      },
    });
  } catch (error) {
    io.stderr(`${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const [name, ...args] = parsed.positionals;
  if (name === 'help' || name === undefined) {
    (name === 'help' ? io.stdout : io.stderr)(USAGE);
    return name === 'help' ? 0 : 2;
  }
  // Runs until a signal stops it; the exit code is the drain's (0, or 1 when it timed out).
  if (name === 'start') {
    if (args.length === 0) return runService();
    io.stderr(`start takes no argument(s).\n\n${USAGE}`);
    return 2;
  }
  // Migrating must not open the service (which would migrate at start): its own path.
  if (name === 'migrate') {
    if (args.length === 0) return runMigrateCommand(parsed.values, io, openMigrator());
    io.stderr(`migrate takes no argument(s).\n\n${USAGE}`);
    return 2;
  }
  const command = COMMANDS[name];
  if (!command || args.length !== command.arity) {
    io.stderr(`${command ? `${name} takes ${command.arity} argument(s).` : `Unknown command "${name}".`}\n\n${USAGE}`);
    return 2;
  }
  const opened = await openAuth();
  try {
    // What a command changes is in the audit log as the operator's, through the CLI.
    const answer = await runAs({ type: 'admin', via: 'cli' }, () => command.run(opened.auth, args, parsed.values, opened));
    io.stdout(`${JSON.stringify(answer, null, 2)}\n`);
    return 0;
  } catch (error) {
    if (!(error instanceof AuthError)) throw error;
    io.stderr(`${JSON.stringify(errorBody(error.code, error.message))}\n`);
    return 1;
  } finally {
    await opened.close();
  }
}

async function openFromEnvironment() {
  const { config } = await resolveSecrets(loadConfig());
  return buildContainer(config);
}

if (require.main === module) {
  const io: CliIo = { stdout: (text) => process.stdout.write(text), stderr: (text) => process.stderr.write(text) };
  runCli(process.argv.slice(2), io, openFromEnvironment).then(
    (code) => process.exit(code),
    (error) => {
      if (error instanceof StartupError) process.stderr.write(`svc cannot start: ${error.message}\n`);
      else process.stderr.write(error instanceof ConfigError ? `${error.message}\n` : `svc: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exit(1);
    },
  );
}
