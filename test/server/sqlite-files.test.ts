import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { runCli } from '../helpers/cli';
import { startInstance } from '../helpers/instances';

/**
 * SPEC §14: the SQLite database (password hashes, sessions), its -wal/-shm and its folder are
 * readable by the server's user only, whatever the umask and however old the files. SQLite
 * only: PostgreSQL keeps its files itself.
 */

const modeOf = (path: string) => (statSync(path).mode & 0o777).toString(8);

let root: string;
beforeEach(() => {
	root = mkdtempSync(join(tmpdir(), 'lms-modes-'));
	// The server's own umask must not be what makes the files private.
	chmodSync(root, 0o755);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

test('lms-server migrate creates the folder 0700 and the database 0600, even under umask 000', async () => {
	const file = join(root, 'data', 'lms.sqlite');
	const result = await runCli(['migrate'], { env: { DATABASE_URL: `sqlite:${file}` }, umask: 0o000 });
	expect(result).toMatchObject({ code: 0, stderr: '' });
	expect(modeOf(join(root, 'data'))).toBe('700');
	expect(modeOf(file)).toBe('600');
	for (const companion of ['-wal', '-shm']) if (existsSync(file + companion)) expect(modeOf(file + companion)).toBe('600');
});

test('lms-server start tightens files created before (database, -wal, -shm), never the folder they are in', async () => {
	const folder = join(root, 'old');
	const file = join(folder, 'lms.sqlite');
	mkdirSync(folder);
	expect((await runCli(['migrate'], { env: { DATABASE_URL: `sqlite:${file}` } })).code).toBe(0);
	// As an older version (or a careless copy) left them: world-readable.
	chmodSync(folder, 0o755);
	chmodSync(file, 0o644);

	const server = await startInstance({ DATABASE_URL: `sqlite:${file}` }, []);
	try {
		// While the server runs, SQLite's write-ahead log and shared memory exist beside the file.
		expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
		// The folder may be one the operator shares (issue 30): the file's own mode protects it.
		expect(modeOf(folder)).toBe('755');
		expect(modeOf(file)).toBe('600');
		expect(existsSync(`${file}-wal`)).toBe(true);
		expect(existsSync(`${file}-shm`)).toBe(true);
		expect(modeOf(`${file}-wal`)).toBe('600');
		expect(modeOf(`${file}-shm`)).toBe('600');
	} finally {
		await server.stop();
	}
});

test('a -wal and -shm left world-readable by a crash are tightened at the next start', async () => {
	const file = join(root, 'lms.sqlite');
	expect((await runCli(['migrate'], { env: { DATABASE_URL: `sqlite:${file}` } })).code).toBe(0);
	const crashed = await startInstance({ DATABASE_URL: `sqlite:${file}` }, []);
	process.kill(crashed.pid, 'SIGKILL');
	await crashed.stop();
	for (const companion of ['', '-wal', '-shm']) if (existsSync(file + companion)) chmodSync(file + companion, 0o644);
	expect(existsSync(`${file}-wal`)).toBe(true);

	expect((await runCli(['keys', 'list', '--org', 'none'], { env: { DATABASE_URL: `sqlite:${file}` } })).stderr).toMatch(/No organization/);
	for (const companion of ['', '-wal', '-shm']) if (existsSync(file + companion)) expect(modeOf(file + companion)).toBe('600');
});
