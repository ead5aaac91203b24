// A customer's CommonJS Express app with the whole svc service mounted under /auth
// (createSvcServer from @svc/server) beside a route of its own, as the README shows it.
// Environment: PORT, SVC_DATA_DIR (a fresh folder: SQLite database, generated master key),
// SVC_ADMIN_TOKEN. Prints {"port": n} once it listens. On SIGTERM it stops the service, asks
// /auth/healthz once more (a stopped service answers 503), closes its own server and prints
// {"stopped": ...}; nothing is left to keep the process alive, so it exits by itself.
const http = require('node:http');
const express = require('express');
const { createSvcServer } = require('@svc/server');

async function main() {
  const port = Number(process.env.PORT);
  const app = express();
  const svc = await createSvcServer({
    baseUrl: `http://127.0.0.1:${port}/auth`,
    dataDir: process.env.SVC_DATA_DIR,
    adminToken: process.env.SVC_ADMIN_TOKEN,
    bcryptCost: 4,
    logLevel: 'warn',
  });
  app.use('/auth', svc.handler);
  app.use(express.json());
  app.get('/', (_req, res) => res.json({ app: 'mine' }));
  await svc.start();
  const server = app.listen(port, '127.0.0.1', () => console.log(JSON.stringify({ port: server.address().port })));

  process.once('SIGTERM', async () => {
    const { drained } = await svc.stop();
    const afterStop = await statusOf(`http://127.0.0.1:${port}/auth/healthz`);
    server.close(() => console.log(JSON.stringify({ stopped: { drained, afterStop } })));
  });
}

/** The status of a GET on a connection of its own (closed after the answer). */
function statusOf(url) {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent: false }, (res) => {
        res.resume();
        res.once('end', () => resolve(res.statusCode));
      })
      .once('error', reject);
  });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
