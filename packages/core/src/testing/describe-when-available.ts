/**
 * docs/architecture.md#tests: a suite that needs something outside the process (PostgreSQL, Redis, Chromium,
 * oathtool) runs when it is there. When it is missing, the suite FAILS under CI=true — a green CI
 * run must mean the suite really ran — and is otherwise skipped with a loud warning.
 *
 * @param need what the suite needs, for messages (e.g. "PostgreSQL at postgres://…")
 * @param missing null when available, else why not (with a hint how to get it)
 */
export function describeWhenAvailable(name: string, need: string, missing: string | null, body: () => void): void {
  if (missing === null) {
    describe(name, body);
  } else if (process.env.CI === 'true') {
    describe(name, () => {
      it(`needs ${need} (CI=true)`, () => {
        throw new Error(`CI=true: ${need} is not available: ${missing}`);
      });
    });
  } else {
    console.warn(`\n!!! ${name}: SKIPPED, ${need} is not available: ${missing}. With CI=true this is a failure. !!!\n`);
    describe.skip(name, body);
  }
}
