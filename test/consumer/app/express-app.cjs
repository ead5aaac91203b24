// A customer's CommonJS Express app: the session proxy under /api/session and a guarded route.
// SVC_API_KEY and SVC_API_URL name the API; prints {"port": n} once it listens.
const express = require('express');
const { createSessionProxy, requireUser } = require('@svc/proxy');

const apiKey = process.env.SVC_API_KEY;
const baseUrl = process.env.SVC_API_URL;
const app = express();
app.set('trust proxy', 'loopback');
app.use(createSessionProxy({ apiKey, baseUrl }));
app.get('/api/notes', requireUser({ apiKey, baseUrl }), (req, res) => {
  res.json({ owner: req.get('x-svc-user-id'), email: res.locals.svcUser.email });
});
const server = app.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ port: server.address().port })));
process.once('SIGTERM', () => server.close(() => process.exit(0)));
