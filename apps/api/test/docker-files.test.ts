import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';

// Static checks of docker/ (no Docker engine here): the Dockerfiles' shape and COPY sources, the
// compose stack's services, health checks and dependencies, and the files they mount or name.
// scripts/build-image-steps.mjs (image-build-steps.test.ts) replays the builds themselves.

const ROOT = resolve(__dirname, '../../..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

interface Instruction {
  keyword: string;
  flags: Record<string, string>;
  args: string;
  json: string[] | null;
  imageOnly: boolean;
}
interface Stage {
  name: string;
  image: string;
  instructions: Instruction[];
}
type DockerfileLib = {
  parseDockerfile(text: string): { stages: Stage[] };
  parseEnv(args: string): Record<string, string>;
  dockerignoreMatcher(text: string): (path: string) => boolean;
};

const IMAGES = [
  { file: 'docker/api.Dockerfile', app: '@svc/server', port: '3000', portVariable: 'PORT', cmd: ['dist/cli.js', 'start'] },
  { file: 'docker/proxy.Dockerfile', app: '@svc/proxy', port: '3001', portVariable: 'PROXY_PORT', cmd: ['dist/main.js'] },
];

describe('docker/', () => {
  let lib: DockerfileLib;
  beforeAll(async () => {
    lib = (await import(join(ROOT, 'scripts/lib/dockerfile.mjs'))) as DockerfileLib;
  });

  describe.each(IMAGES)('$file', ({ file, app, port, portVariable, cmd: command }) => {
    const stagesOf = () => lib.parseDockerfile(read(file)).stages;
    const find = (stage: Stage, keyword: string) => stage.instructions.filter((step) => step.keyword === keyword);

    it('is multi-stage on node:24-slim, installs from the lockfile and deploys only its app', () => {
      const stages = stagesOf();
      expect(stages.map((stage) => stage.image)).toEqual(['node:24-slim', 'node:24-slim']);
      const runs = find(stages[0], 'RUN').map((step) => step.args);
      expect(runs).toContainEqual(expect.stringMatching(/^npm install -g pnpm@12\.\d+\.\d+$/));
      expect(runs).toContainEqual(expect.stringContaining('pnpm install --frozen-lockfile'));
      expect(runs).toContainEqual(expect.stringMatching(new RegExp(`pnpm deploy --filter ${app} --prod\\b`)));
      // The published build, manifests as published, then the deploy: what the tarballs hold.
      const order = ['node scripts/build-packages.mjs', 'node scripts/build-runtime.mjs manifests', `pnpm deploy --filter ${app}`].map((step) => runs.findIndex((run) => run.includes(step)));
      expect(order.every((index, i) => index >= 0 && (i === 0 || index > order[i - 1]))).toBe(true);
      // The API's native addons keep only what loads on the image's platform, once deployed.
      if (app === '@svc/server') expect(runs.findIndex((run) => run.includes('node scripts/build-runtime.mjs natives ../out'))).toBeGreaterThan(order[2]);
      // CI installs the same pnpm as the image.
      const pnpm = /pnpm@(12\.\d+\.\d+)/.exec(runs.join('\n'))![1];
      expect(read('.ci/run')).toContain(`pnpm@${pnpm}`);
    });

    it('runs as a non-root user in production, with a health check, SIGTERM and its port', async () => {
      const runtime = stagesOf().at(-1)!;
      expect(find(runtime, 'USER').map((step) => step.args)).toEqual(['node']);
      expect(find(runtime, 'STOPSIGNAL').map((step) => step.args)).toEqual(['SIGTERM']);
      expect(find(runtime, 'EXPOSE').map((step) => step.args)).toEqual([port]);
      const env = Object.assign({}, ...find(runtime, 'ENV').map((step) => lib.parseEnv(step.args)));
      expect(env).toMatchObject({ NODE_ENV: 'production', [portVariable]: port });
      // The API's malloc gives a burst's memory back (docs/operating.md, "Images and the compose stack"); the bench's built rows run with it.
      if (app === '@svc/server') {
        expect(env).toMatchObject({ LD_PRELOAD: '/usr/local/lib/libjemalloc.so.2', MALLOC_CONF: 'background_thread:true,narenas:2,dirty_decay_ms:1000' });
        // The runtime stage installs it (image-only: the replay takes this machine's copy) and links it where LD_PRELOAD looks.
        const install = find(runtime, 'RUN').find((step) => step.args.includes('libjemalloc2'));
        expect(install?.imageOnly).toBe(true);
        expect(install?.args).toContain(`ln -s "$(dpkg -L libjemalloc2 | grep '/libjemalloc\\.so\\.2$')" ${env.LD_PRELOAD}`);
      }
      const [health] = find(runtime, 'HEALTHCHECK');
      expect(health.json?.slice(0, 2)).toEqual(['node', '-e']);
      expect(health.json?.[2]).toContain(`process.env.${portVariable} || ${port}`);
      expect(health.json?.[2]).toContain('/healthz');
      const [cmd] = find(runtime, 'CMD');
      // The built JavaScript of the package, run by node: no TypeScript loader at run time.
      expect(cmd.json).toEqual(['node', ...command]);
    });

    it('copies only what exists in the build context, and from earlier stages', () => {
      const ignored = lib.dockerignoreMatcher(read('.dockerignore'));
      const stages = stagesOf();
      stages.forEach((stage, index) => {
        for (const copy of find(stage, 'COPY')) {
          const sources = copy.args.split(/\s+/).slice(0, -1);
          if (copy.flags.from) {
            expect(stages.slice(0, index).map((earlier) => earlier.name)).toContain(copy.flags.from);
            continue;
          }
          for (const source of sources) {
            expect({ source, exists: existsSync(join(ROOT, source)), ignored: source !== '.' && ignored(source) }).toEqual({ source, exists: true, ignored: false });
          }
        }
      });
    });
  });

  it('.dockerignore keeps dependencies, data, secrets and history out, and sources in', async () => {
    const ignored = lib.dockerignoreMatcher(read('.dockerignore'));
    for (const path of ['node_modules/x', 'apps/api/node_modules/y', '.git/HEAD', 'data/svc.sqlite', 'docker/.env', '.env', 'apps/demo/screenshots/a.png']) {
      expect({ path, ignored: ignored(path) }).toEqual({ path, ignored: true });
    }
    for (const path of ['pnpm-lock.yaml', 'apps/api/src/main.ts', 'apps/api/openapi/openapi.yaml', 'docker/.env.example', 'scripts/build-runtime.mjs', 'apps/demo/index.html']) {
      expect({ path, ignored: ignored(path) }).toEqual({ path, ignored: false });
    }
  });

  describe('compose.yaml', () => {
    const compose = parse(read('docker/compose.yaml'), { merge: true }) as { services: Record<string, Record<string, any>> };
    const services = compose.services;

    it('has two API replicas behind a load balancer, PostgreSQL 16, Redis 7, Mailpit, a migration job and the proxy', () => {
      expect(Object.keys(services).sort()).toEqual(['api-1', 'api-2', 'lb', 'mailpit', 'migrate', 'postgres', 'proxy', 'redis']);
      expect(services.postgres.image).toBe('postgres:16');
      expect(services.redis.image).toMatch(/^redis:7/);
      expect(services.mailpit.image).toMatch(/^axllent\/mailpit:/);
      for (const api of ['api-1', 'api-2']) {
        expect(services[api].build).toEqual({ context: '..', dockerfile: 'docker/api.Dockerfile' });
        expect(services[api].environment).toMatchObject({ SMTP_URL: 'smtp://mailpit:1025', REDIS_URL: 'redis://redis:6379', SVC_MIGRATE_ON_START: 'false' });
        expect(services[api].environment.DATABASE_URL).toMatch(/^postgres:\/\/svc:.*@postgres:5432\/svc$/);
        expect(services[api].environment.SVC_ADMIN_TOKEN).toMatch(/^\$\{SVC_ADMIN_TOKEN:\?/);
        expect(services[api].environment.SVC_MASTER_KEY).toMatch(/^\$\{SVC_MASTER_KEY:\?/);
      }
      expect(services.migrate.command).toEqual(['node', 'dist/cli.js', 'migrate']);
      expect(services.proxy.build).toEqual({ context: '..', dockerfile: 'docker/proxy.Dockerfile' });
      expect(services.proxy.environment).toMatchObject({ SVC_API_URL: 'http://lb:8080', PROXY_STATIC_DIR: '/app/demo' });
    });

    it('checks the health of every long-running service and starts each after what it needs', () => {
      // The svc images carry their own HEALTHCHECK; the others declare one here.
      const imageChecked = (name: string) => Boolean(services[name].build);
      for (const [name, service] of Object.entries(services)) {
        if (name === 'migrate') continue;
        expect({ name, checked: Boolean(service.healthcheck?.test) || imageChecked(name) }).toEqual({ name, checked: true });
        for (const [dependency, { condition }] of Object.entries<{ condition: string }>(service.depends_on ?? {})) {
          expect(Object.keys(services)).toContain(dependency);
          const expected = dependency === 'migrate' ? 'service_completed_successfully' : 'service_healthy';
          expect({ name, dependency, condition }).toEqual({ name, dependency, condition: expected });
        }
      }
      expect(Object.keys(services['api-1'].depends_on).sort()).toEqual(['mailpit', 'migrate', 'redis']);
      expect(Object.keys(services.migrate.depends_on)).toEqual(['postgres']);
      expect(Object.keys(services.lb.depends_on).sort()).toEqual(['api-1', 'api-2']);
    });

    it('balances over exactly the API replicas, and names every variable in .env.example', () => {
      const nginx = read('docker/nginx.conf');
      expect([...nginx.matchAll(/server (\S+):(\d+)/g)].map((match) => `${match[1]}:${match[2]}`)).toEqual(['api-1:3000', 'api-2:3000']);
      expect(services.lb.volumes).toContain('./nginx.conf:/etc/nginx/nginx.conf:ro');
      const example = read('docker/.env.example');
      const variables = new Set([...read('docker/compose.yaml').matchAll(/\$\{([A-Z0-9_]+)/g)].map((match) => match[1]));
      expect([...variables].filter((name) => !new RegExp(`^${name}=`, 'm').test(example))).toEqual([]);
    });
  });
});
