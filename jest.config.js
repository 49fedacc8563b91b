/** One runner for the whole repository: server, nodes and browser suites. */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  // The two-instance tests need PostgreSQL and Redis: `npm run test:postgres` runs them.
  testPathIgnorePatterns: ['/node_modules/', ...(process.env.TEST_DATABASE === 'postgres' ? [] : ['<rootDir>/test/cluster/'])],
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.test.json' }] },
  setupFiles: ['<rootDir>/test/setup-env.ts'],
  testTimeout: 60_000,
};
