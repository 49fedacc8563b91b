/**
 * The real-n8n suite (`npm run test:n8n`): the packed package inside n8n 2.41 on Node 24. One file
 * at a time: each starts n8n processes of its own, and the machine has two cores.
 */
const path = require('node:path');

module.exports = {
  rootDir: path.join(__dirname, '..', '..'),
  testEnvironment: 'node',
  roots: ['<rootDir>/test/n8n'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.test.json' }] },
  setupFiles: ['<rootDir>/test/setup-env.ts'],
  globalSetup: '<rootDir>/test/n8n/global-setup.ts',
  maxWorkers: 1,
  testTimeout: 240_000,
};
