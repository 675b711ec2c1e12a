import { defineConfig } from 'vitest/config';

/** End-to-end runs of whole jobs: `npm run test:e2e`. Each takes tens of seconds to minutes on 2 cores. */
export default defineConfig({
  test: {
    include: ['test/**/*.e2e.test.ts'],
    testTimeout: 300_000,
    hookTimeout: 300_000,
    pool: 'forks',
  },
});
