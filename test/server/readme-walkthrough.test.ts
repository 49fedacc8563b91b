import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { createTestDatabase, type TestDatabase } from '../helpers/database';
import { startInstance, type Instance } from '../helpers/instances';
import { waitUntil } from '../helpers/wait';

/**
 * Issue 30: the README's "Use the API" works as printed on a fresh demo. The server is started as
 * the quick start does (`start --demo`), the `export` line it prints is pasted, and every command
 * of the README's block runs in bash with curl failing on any 4xx or 5xx.
 */

const README = readFileSync(join(__dirname, '..', '..', 'README.md'), 'utf8');

/** The shell block of "Use the API" that starts with the users' commands. */
function walkthroughBlock(): string {
	const section = README.slice(README.indexOf('## Use the API'));
	const match = /```sh\n(# Users:[\s\S]*?)```/.exec(section);
	if (!match) throw new Error('README: no "Use the API" block starting with "# Users:"');
	return match[1];
}

let database: TestDatabase;
let server: Instance;
beforeAll(async () => {
	database = await createTestDatabase();
	server = await startInstance({ DATABASE_URL: database.databaseUrl, RATE_LIMIT_PER_MINUTE: '1000' }, ['--demo'], 60_000);
	// The banner follows the listening line on stderr: wait for it.
	await waitUntil(() => /export LMS=.*\n/.test(server.output()), { timeout: 20_000, what: 'the demo banner' });
}, 90_000);
afterAll(async () => {
	await server?.stop();
	await database?.remove();
});

test('the feed is not empty right after the first start', async () => {
	const key = /Demo API key for acme \(every scope, shown once\): (lms_\w+)/.exec(server.output())![1];
	const feed = (await (await fetch(`${server.url}/api/v1/events`, { headers: { Authorization: `Bearer ${key}` } })).json()) as { data: unknown[] };
	expect(feed.data.length).toBeGreaterThan(0);
});

test('the printed export line, then every command of the README, answers 2xx', () => {
	const exportLine = /^ {2}(export LMS=.*)$/m.exec(server.output())?.[1];
	expect(exportLine).toMatch(/^export LMS=http:\/\/\S+ KEY=lms_\w+ STUDENT=usr_\w+ STUDENT_EMAIL=\S+@\S+ COURSE=crs_\w+ ENROLLMENT=enr_\w+ CERTIFICATE=cert_\w+$/);

	// Only the batch's one item is expected to be refused (already enrolled), inside a 200.
	const script = [
		'set -euo pipefail',
		'curl() { command curl --silent --show-error --fail-with-body --max-time 10 "$@"; }',
		exportLine,
		walkthroughBlock(),
	].join('\n');
	const run = spawnSync('bash', ['-c', script], { encoding: 'utf8', timeout: 60_000 });
	expect(run.stderr).toBe('');
	expect(run.status).toBe(0);
	expect(run.stdout).toContain('HTTP/1.1 201 Created');
	expect(run.stdout).toContain('"status":"completed"');
	expect(run.stdout).toContain('"certificate.issued"');
}, 120_000);
