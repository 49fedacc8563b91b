import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { runCli } from '../helpers/cli';
import { createTestDatabase } from '../helpers/database';

/**
 * Issue 30: a wrong DATABASE_URL must damage nothing and create nothing. Only start, migrate and
 * seed may create a database; every other command refuses a missing or empty one and says where it
 * looked; modes are tightened only on a file that opened as SQLite, never on a folder.
 */

const modeOf = (path: string) => (statSync(path).mode & 0o777).toString(8);

let root: string;
beforeEach(() => {
	root = mkdtempSync(join(tmpdir(), 'lms-dbpath-'));
	chmodSync(root, 0o755);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const cli = (args: string[], databaseUrl: string, cwd = root) => runCli(args, { env: { DATABASE_URL: databaseUrl }, cwd });

test('`sqlite:` with no path names a folder: refused, and no folder changes mode', async () => {
	const work = join(root, 'work');
	mkdirSync(work, { mode: 0o755 });
	chmodSync(work, 0o755);
	for (const command of [['migrate'], ['orgs', 'list']]) {
		const result = await cli(command, 'sqlite:', work);
		expect(result.code).not.toBe(0);
		expect(result.stderr).toContain(`${work} is a folder, not a database file`);
		expect(result.stderr).not.toMatch(/\n\s+at /);
	}
	expect(modeOf(work)).toBe('755');
	expect(modeOf(root)).toBe('755');
});

test('a file that is not SQLite (sqlite:./README.md) is refused, left byte for byte and mode for mode', async () => {
	const readme = join(root, 'README.md');
	writeFileSync(readme, '# A project\n\nNot a database.\n');
	chmodSync(readme, 0o644);
	for (const command of [['migrate'], ['seed', '--demo'], ['keys', 'list', '--org', 'acme']]) {
		const result = await cli(command, 'sqlite:./README.md');
		expect(result.code).not.toBe(0);
		expect(result.stderr).toContain(`${readme} is not an SQLite database`);
	}
	expect(readFileSync(readme, 'utf8')).toBe('# A project\n\nNot a database.\n');
	expect(modeOf(readme)).toBe('644');
	expect(modeOf(root)).toBe('755');
	expect(existsSync(`${readme}-wal`)).toBe(false);
});

test('a typo in the path: every command but start, migrate and seed refuses, naming the resolved path, and creates nothing', async () => {
	const typo = join(root, 'data', 'typo.sqlite');
	for (const command of [['orgs', 'list'], ['keys', 'list', '--org', 'acme'], ['demo', 'activity', '--org', 'acme']]) {
		const result = await cli(command, 'sqlite:./data/typo.sqlite');
		expect(result.code).not.toBe(0);
		expect(result.stderr).toContain(`no database at ${typo}`);
		expect(result.stderr).toContain('lms-server migrate');
		expect(result.stderr).not.toMatch(/No organization/);
	}
	expect(existsSync(join(root, 'data'))).toBe(false);

	// The commands that set a database up still do, and then the others work.
	expect(await cli(['migrate'], 'sqlite:./data/typo.sqlite')).toMatchObject({ code: 0, stderr: '' });
	expect(modeOf(join(root, 'data'))).toBe('700');
	expect(modeOf(typo)).toBe('600');
	expect((await cli(['orgs', 'list'], 'sqlite:./data/typo.sqlite')).code).toBe(0);
});

test('an SQLite file no migration ran on is "empty": refused with its path; migrate sets it up', async () => {
	const file = join(root, 'blank.sqlite');
	// A valid, empty SQLite database, as `sqlite3 blank.sqlite 'VACUUM'` or a stray open leaves it.
	writeFileSync(file, '');
	const result = await cli(['orgs', 'list'], `sqlite:${file}`);
	expect(result.code).not.toBe(0);
	expect(result.stderr).toContain(`the database at ${file} is empty`);
	expect((await cli(['migrate'], `sqlite:${file}`)).code).toBe(0);
	expect((await cli(['orgs', 'list'], `sqlite:${file}`)).code).toBe(0);
});

test('an existing folder keeps its mode: the database file alone is tightened', async () => {
	const shared = join(root, 'shared');
	mkdirSync(shared);
	chmodSync(shared, 0o755);
	const file = join(shared, 'lms.sqlite');
	expect((await cli(['migrate'], `sqlite:${file}`)).code).toBe(0);
	chmodSync(file, 0o644);
	expect((await cli(['orgs', 'list'], `sqlite:${file}`)).code).toBe(0);
	expect(modeOf(shared)).toBe('755');
	expect(modeOf(file)).toBe('600');
	// A copy of a good database elsewhere opens as it is.
	copyFileSync(file, join(root, 'copy.sqlite'));
	expect((await cli(['orgs', 'list'], `sqlite:${join(root, 'copy.sqlite')}`)).code).toBe(0);
});

test('PostgreSQL: a database no migration ran on is refused by the everyday commands', async () => {
	const db = await createTestDatabase();
	try {
		if (db.dialect === 'sqlite') {
			// The SQLite form of this rule is the test above; here it is the file that does not exist yet.
			expect((await cli(['orgs', 'list'], db.databaseUrl)).stderr).toContain('no database at');
			return;
		}
		const result = await cli(['orgs', 'list'], db.databaseUrl);
		expect(result.code).not.toBe(0);
		expect(result.stderr).toContain('is empty');
		expect((await cli(['migrate'], db.databaseUrl)).code).toBe(0);
		expect((await cli(['orgs', 'list'], db.databaseUrl)).code).toBe(0);
	} finally {
		await db.remove();
	}
});

test('orgs list and --version: the operator sees what is there', async () => {
	const file = join(root, 'lms.sqlite');
	expect((await cli(['migrate'], `sqlite:${file}`)).code).toBe(0);
	expect((await cli(['orgs', 'list'], `sqlite:${file}`)).stdout).toMatch(/No organizations yet/);
	expect((await cli(['orgs', 'create', '--name', 'Acme', '--slug', 'acme', '--plan', 'enterprise'], `sqlite:${file}`)).code).toBe(0);
	const listed = JSON.parse((await cli(['orgs', 'list', '--json'], `sqlite:${file}`)).stdout) as Array<{ slug: string; plan: string }>;
	expect(listed).toEqual([expect.objectContaining({ slug: 'acme', plan: 'enterprise', name: 'Acme' })]);
	expect((await cli(['orgs', 'list'], `sqlite:${file}`)).stdout).toMatch(/^SLUG\s+ID\s+PLAN\s+NAME\nacme\s/);
	const version = await runCli(['--version']);
	expect(version).toMatchObject({ code: 0, stdout: `${(JSON.parse(readFileSync(join(__dirname, '..', '..', 'server', 'package.json'), 'utf8')) as { version: string }).version}\n` });
});
