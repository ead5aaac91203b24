// The session proxy as a customer mounts it: its Express router inside an Express app of their own
// (JSON bodies parsed, a route of their own beside it), on bare node:http. Started as a child by
// bench/run.ts; MOUNTED_PROXY_ROOT is the checkout whose proxy is mounted (--api-root).
import { createServer } from 'node:http';
import { join } from 'node:path';
import express from 'express';

const env = (name: string) => process.env[name] ?? fail(`${name} is required`);

async function main(): Promise<void> {
  const root = process.env.MOUNTED_PROXY_ROOT ?? join(__dirname, '..', '..');
  const { createSessionProxy } = (await import(join(root, 'apps', 'proxy', 'src', 'index.ts'))) as typeof import('../../apps/proxy/src/index');
  const app = express();
  app.set('x-powered-by', false);
  app.use(express.json());
  app.get('/healthz', (_req, res) => void res.json({ data: { status: 'ok' } }));
  app.get('/api/products', (_req, res) => void res.json({ data: [] }));
  app.use(createSessionProxy({ apiKey: env('SVC_API_KEY'), baseUrl: env('SVC_API_URL'), accountPlan: 'PRO' }));
  const server = createServer(app);
  server.keepAliveTimeout = 65_000;
  server.listen(Number(env('PORT')), '127.0.0.1');
  process.once('SIGTERM', () => server.close(() => process.exit(0)));
}

function fail(message: string): never {
  throw new Error(message);
}

void main();
