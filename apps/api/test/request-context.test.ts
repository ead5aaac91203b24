import type { AddressInfo } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import express from 'express';
import type { EventContext, SecurityEventSink } from '@svc/core';
import { requestContext, withRequestContext } from '../src/http/request-context';

/** V8's full collection, read from a fresh context once the flag is set (as rest-collector.ts does). */
function fullCollection(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

// Work a request leaves running after its answer (a mail request's job) emits its events inside the
// request's scope. Once the response has closed, that scope keeps only what the events read: holding the
// request itself kept every finished request alive through the young generation's collections
// (bench/README.md, "Round 17").
describe('the request scope after the answer', () => {
  it('gives events emitted after the response closed the request context, without keeping the request', async () => {
    const contexts: EventContext[] = [];
    const sink: SecurityEventSink = withRequestContext({
      emit: async (_scope, event) => {
        contexts.push(event.context ?? {});
      },
    });
    let finishWork!: () => void;
    let workDone!: Promise<void>;
    let request!: WeakRef<object>;
    let closed!: Promise<void>;
    // Defined out here so that no closure of the route's own holds the request or the response.
    const leaveWork = () => {
      // Still running in the request's scope after the answer, as AfterAnswer's jobs are.
      workDone = new Promise<void>((resolve) => (finishWork = resolve)).then(() => sink.emit({ projectId: 'p', environment: 'sandbox' }, { type: 'webhook.test', data: {} }));
    };
    const watchClose = (res: express.Response) => {
      closed = new Promise((resolve) => res.once('close', () => resolve()));
    };
    const app = express();
    app.use(requestContext());
    app.get('/answer-first', (req, res) => {
      request = new WeakRef(req);
      watchClose(res);
      res.locals.requestId = 'req-after-answer';
      leaveWork();
      res.json({ ok: true });
    });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const answer = await fetch(`http://127.0.0.1:${port}/answer-first`, { headers: { 'user-agent': 'scope-test/1', connection: 'close' } });
      expect(await answer.json()).toEqual({ ok: true });
      await closed;

      // The work is still pending, so its scope is alive; the request it came from is not.
      const collect = fullCollection();
      for (let attempt = 0; attempt < 5 && request.deref() !== undefined; attempt += 1) {
        await new Promise((resolve) => setImmediate(resolve));
        collect();
      }
      expect(request.deref()).toBeUndefined();

      finishWork();
      await workDone;
      expect(contexts).toEqual([{ clientAddress: '127.0.0.1', userAgent: 'scope-test/1', requestId: 'req-after-answer', actor: undefined }]);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
