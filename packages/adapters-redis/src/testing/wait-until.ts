/**
 * Polls `condition` until it holds, for things that take real time on a real network (a client
 * reconnecting). Rejects after `timeoutMs` so a broken recovery fails the test instead of hanging.
 */
export async function waitUntil(condition: () => boolean | Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
