/**
 * One runner for the whole repository, in three projects:
 * - unit: no server, no database, no child process (the nodes against nock, pure server modules),
 *   under 30 s in all (the property-based model and the minute of fuzzing run with integration);
 *   `npx jest --selectProjects unit` is the quick loop after a change to a node;
 * - process: suites that spawn processes (the CLI, several instances, crashes);
 * - integration: everything else (the real server over HTTP, SQLite or PostgreSQL, Chromium).
 * The two-instance tests need PostgreSQL and Redis (`npm run test:postgres`); the real-n8n suite
 * has its own configuration (`npm run test:n8n`).
 */
const UNIT = [
	'<rootDir>/test/nodes/credential.test.ts',
	'<rootDir>/test/nodes/due-dates-edges.test.ts',
	'<rootDir>/test/nodes/enrollments.test.ts',
	'<rootDir>/test/nodes/errors.test.ts',
	'<rootDir>/test/nodes/pagination.test.ts',
	'<rootDir>/test/nodes/transport.test.ts',
	'<rootDir>/test/nodes/trigger-v2-edges.test.ts',
	'<rootDir>/test/nodes/v2.test.ts',
	'<rootDir>/test/server/import-circles.test.ts',
	'<rootDir>/test/server/jobs.test.ts',
	'<rootDir>/test/server/trust-proxy.test.ts',
];
const PROCESS = ['<rootDir>/test/cluster/', '<rootDir>/test/reliability/', '<rootDir>/test/server/cli-'];
const common = {
	testEnvironment: 'node',
	roots: ['<rootDir>/test'],
	transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.test.json' }] },
	setupFiles: ['<rootDir>/test/setup-env.ts'],
};
const ignored = ['/node_modules/', '<rootDir>/test/n8n/'];
const escape = (path) => path.replace('<rootDir>', '').replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

module.exports = {
	// A bound, not a wait: on two shared cores at load 10–15 a suite's set-up (migrations, a CLI
	// run, a kill -9 and restart) took over a minute; a passing test never waits for it.
	testTimeout: 120_000,
	// Two files at a time even on two cores (jest's default there is one): most of a suite's time is
	// its server child and the database answering, so a second file roughly halves the wall time.
	maxWorkers: Math.max(2, require('node:os').availableParallelism() - 1),
	projects: [
		{ ...common, displayName: 'unit', testMatch: UNIT },
		{
			...common,
			displayName: 'process',
			testMatch: ['<rootDir>/test/cluster/*.test.ts', '<rootDir>/test/reliability/*.test.ts', '<rootDir>/test/server/cli-*.test.ts'],
			testPathIgnorePatterns: ignored,
		},
		{ ...common, displayName: 'integration', testMatch: ['**/*.test.ts'], testPathIgnorePatterns: [...ignored, ...UNIT.map(escape), ...PROCESS.map(escape)] },
	],
};
