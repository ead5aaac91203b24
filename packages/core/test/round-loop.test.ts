import { RoundLoop } from '../src/round-loop';

/** A round that stays open until the test lets it finish. */
function gatedRounds() {
  const releases: Array<() => void> = [];
  let started = 0;
  const round = () =>
    new Promise<number>((resolve) => {
      started += 1;
      const n = started;
      releases.push(() => resolve(n));
    });
  return { round, started: () => started, release: () => releases.shift()?.() };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('RoundLoop', () => {
  it('joins concurrent runOnce calls to the round in flight', async () => {
    const gate = gatedRounds();
    const loop = new RoundLoop(gate.round, { intervalMs: 60_000, onError: () => undefined });
    const first = loop.runOnce();
    const second = loop.runOnce();
    expect(gate.started()).toBe(1);
    gate.release();
    expect(await Promise.all([first, second])).toEqual([1, 1]);
  });

  it('runs again at once when woken during a round, else waits for the interval', async () => {
    const gate = gatedRounds();
    const loop = new RoundLoop(gate.round, { intervalMs: 60_000, onError: () => undefined });
    loop.start();
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(gate.started()).toBe(1);
    loop.wake(); // during round 1: its claim may have missed what was just queued
    gate.release();
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(gate.started()).toBe(2);
    gate.release();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(gate.started()).toBe(2); // nothing woke it: the next round waits the 60 s interval
    await loop.stop();
  });

  it('reports a failed round and keeps going; stop waits for the round in flight', async () => {
    const errors: unknown[] = [];
    let calls = 0;
    let finished = false;
    const loop = new RoundLoop(
      async () => {
        calls += 1;
        if (calls === 1) throw new Error('database away');
        await tick();
        finished = true;
      },
      { intervalMs: 1, onError: (error) => errors.push(error) },
    );
    loop.start();
    while (calls < 2) await new Promise((resolve) => setTimeout(resolve, 1));
    await loop.stop();
    expect(finished).toBe(true);
    expect(errors).toEqual([new Error('database away')]);
  });

  it('does nothing on wake() before start() or after stop()', async () => {
    let calls = 0;
    const loop = new RoundLoop(async () => void (calls += 1), { intervalMs: 1, onError: () => undefined });
    loop.wake();
    loop.start();
    await new Promise((resolve) => setTimeout(resolve, 5));
    await loop.stop();
    const after = calls;
    loop.wake();
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(after).toBeGreaterThan(0);
    expect(calls).toBe(after);
  });
});
