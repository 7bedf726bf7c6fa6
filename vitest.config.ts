import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: [
      { test: { name: 'unit', include: ['test/unit/**/*.test.ts'] } },
      { test: { name: 'integration', include: ['test/integration/**/*.test.ts'], testTimeout: 20_000 } },
      {
        test: {
          name: 'nvim',
          include: ['test/nvim/**/*.test.ts'],
          testTimeout: 30_000,
          hookTimeout: 30_000,
          // Each file drives its own Neovim processes; keep the two cores from oversubscribing.
          maxWorkers: 2,
        },
      },
    ],
  },
});
