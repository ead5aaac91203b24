import { Writable } from 'node:stream';
import { AfterAnswer } from '../src/http/after-answer';
import { createLogger } from '../src/composition/logger';
import { createMetrics } from '../src/http/metrics';

// Work left after an answer, at shutdown: waited for within the stop's budget; what still runs
// past it is logged as not done, and its later end, either way, is logged too.
describe('AfterAnswer.idle with a budget', () => {
  function build() {
    const lines: { level: number; msg: string; requestId?: string; kind?: string }[] = [];
    const logger = createLogger({ level: 'info', destination: new Writable({ write: (c, _e, done) => (lines.push(JSON.parse(String(c))), done()) }) });
    const metrics = createMetrics();
    return { lines, metrics, jobs: new AfterAnswer({ logger, metrics }) };
  }
  const later = () => {
    let settle!: (error?: Error) => void;
    const work = new Promise<void>((resolve, reject) => (settle = (error) => (error ? reject(error) : resolve())));
    return { work: () => work, settle };
  };

  it('waits for the jobs that end within the budget, gives up on the others at its end and logs each as not done', async () => {
    const { lines, metrics, jobs } = build();
    let quick = false;
    const [failing, finishing] = [later(), later()];
    jobs.run('password_reset', 'req-quick', async () => {
      await new Promise((resolve) => setTimeout(resolve, 50));
      quick = true;
    });
    jobs.run('magic_link', 'req-failing', failing.work);
    jobs.run('email_verification', 'req-finishing', finishing.work);
    const started = Date.now();
    expect(await jobs.idle({ budget: AbortSignal.timeout(300) })).toBe(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(quick).toBe(true);
    expect(lines.map((l) => [l.level, l.requestId, l.kind, l.msg])).toEqual([
      [50, 'req-failing', 'magic_link', 'accepted request not finished at shutdown; its mail may not be queued'],
      [50, 'req-finishing', 'email_verification', 'accepted request not finished at shutdown; its mail may not be queued'],
    ]);
    // Their later ends resolve those lines: a failure as any failure after an answer, a success says the mail is queued after all.
    failing.settle(new Error('storage closed'));
    finishing.settle();
    await jobs.idle();
    expect(lines.slice(2).map((l) => [l.level, l.requestId, l.msg])).toEqual([
      [50, 'req-failing', 'accepted request failed after its answer; its mail is not sent'],
      [30, 'req-finishing', 'accepted request finished after the shutdown stopped waiting; its mail is queued'],
    ]);
    const counted = await metrics.registry.getSingleMetricAsString('svc_accepted_requests_failed_total');
    expect(counted).toContain('svc_accepted_requests_failed_total{kind="magic_link"} 1');
    expect(counted).not.toMatch(/kind="(email_verification|password_reset)"/);
  });

  it('without a budget waits for every job, and an exhausted budget waits for none', async () => {
    const { lines, jobs } = build();
    const slow = later();
    jobs.run('magic_link', 'req-slow', slow.work);
    const budget = new AbortController();
    budget.abort();
    expect(await jobs.idle({ budget: budget.signal })).toBe(1);
    let idle = false;
    const waiting = jobs.idle().then(() => (idle = true));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(idle).toBe(false);
    slow.settle();
    await waiting;
    expect(lines.map((l) => l.requestId)).toEqual(['req-slow', 'req-slow']);
  });
});
