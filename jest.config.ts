/** @jest-config-loader esbuild-register */
import type { Config } from 'jest';

// One jest project per package/app. Types are checked once by `tsc --noEmit` (scripts/test.mjs),
// so ts-jest only transpiles here (isolatedModules in tsconfig.jest.json): fast and decorator-safe.
const packages: { name: string; dir: string; testMatch?: string[] }[] = [
  { name: 'core', dir: 'packages/core' },
  { name: 'adapters-crypto', dir: 'packages/adapters-crypto' },
  { name: 'adapters-typeorm', dir: 'packages/adapters-typeorm' },
  { name: 'adapters-redis', dir: 'packages/adapters-redis' },
  { name: 'adapters-smtp', dir: 'packages/adapters-smtp' },
  { name: 'adapters-mfa', dir: 'packages/adapters-mfa' },
  { name: 'adapters-oauth', dir: 'packages/adapters-oauth' },
  { name: 'api', dir: 'apps/api' },
  { name: 'sdk', dir: 'packages/sdk' },
  { name: 'client', dir: 'packages/client' },
  { name: 'proxy', dir: 'apps/proxy' },
  // Headless Chromium against the API and the standalone proxy serving apps/demo.
  { name: 'demo', dir: 'apps/demo' },
  // The bench harness's own logic (targets, load figures, profiles); `pnpm bench` itself is not a test.
  { name: 'bench', dir: 'bench' },
  // Rules over the whole workspace: no import cycles, the API's folders depending one way, and
  // `npm test` itself ending (scripts/test.mjs).
  { name: 'architecture', dir: 'test/architecture', testMatch: ['<rootDir>/*.test.ts'] },
  // The packed packages installed with npm into an app outside the workspace (test/consumer/README.md).
  { name: 'consumer', dir: 'test/consumer', testMatch: ['<rootDir>/*.test.ts'] },
];

const config: Config = {
  projects: packages.map(({ name, dir, testMatch }) => ({
    displayName: name,
    rootDir: `<rootDir>/${dir}`,
    testEnvironment: 'node',
    testMatch: testMatch ?? ['<rootDir>/src/**/*.test.ts', '<rootDir>/test/**/*.test.ts'],
    transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: `<rootDir>/${'../'.repeat(dir.split('/').length)}tsconfig.jest.json` }] },
    moduleFileExtensions: ['ts', 'js', 'json'],
  })),
};

export default config;
