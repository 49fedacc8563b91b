/** One runner for the whole repository: server, nodes and browser suites. */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  // The two-instance tests need PostgreSQL and Redis: `npm run test:postgres` runs them; the
  // real-n8n suite has its own configuration (`npm run test:n8n`).
  testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/n8n/', ...(process.env.TEST_DATABASE === 'postgres' ? [] : ['<rootDir>/test/cluster/'])],
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.test.json' }] },
  setupFiles: ['<rootDir>/test/setup-env.ts'],
  testTimeout: 60_000,
};
