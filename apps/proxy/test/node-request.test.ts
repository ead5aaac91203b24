import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import type { TrustProxy } from '../src/config';
import { compileTrust, NodeProxyRequest } from '../src/node-request';

// The standalone server reads requests without Express; with every TRUST_PROXY form its client
// address, protocol and host must be what Express's req.ip, req.protocol and req.host say for the
// same request (the Express adapter uses those).
describe('NodeProxyRequest against Express', () => {
  const settings: TrustProxy[] = [false, true, 1, 2, ['loopback'], ['10.0.0.0/8'], ['127.0.0.1', '10.1.2.3']];
  const headerSets: Array<Record<string, string>> = [
    {},
    { 'X-Forwarded-For': '198.51.100.9', 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'app.example.com' },
    { 'X-Forwarded-For': '203.0.113.1, 10.1.2.3', 'X-Forwarded-Proto': 'https, http', 'X-Forwarded-Host': 'app.example.com, internal:8080' },
  ];

  it.each(settings.map((setting) => [JSON.stringify(setting), setting] as const))('trust proxy %s', async (_name, setting) => {
    const seen: Array<{ express: object; node: object }> = [];
    const app = express().set('trust proxy', setting);
    const trust = compileTrust(setting);
    app.get('/probe', (req, res) => {
      const node = new NodeProxyRequest(req, '/probe', trust);
      seen.push({ express: { ip: req.ip, origin: `${req.protocol}://${req.host}` }, node: { ip: node.clientIp(), origin: node.origin() } });
      res.end();
    });
    const server: Server = createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      for (const headers of headerSets) await fetch(`http://127.0.0.1:${port}/probe`, { headers });
    } finally {
      server.close();
    }
    expect(seen).toHaveLength(headerSets.length);
    for (const { express: expected, node } of seen) expect(node).toEqual(expected);
  });
});
