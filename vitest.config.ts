import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Whole-job runs (npm start's job, the research tables, generation over every real history, kill-and-resume runs)
    // take minutes on 2 cores; they run in `npm run test:e2e` (vitest.e2e.config.ts), which CI runs after `npm test`.
    exclude: ['test/**/*.e2e.test.ts', '**/node_modules/**'],
    // Sandbox and pool tests spawn child processes and build isolates; give them room on 2 cores.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
