/**
 * Every `lms-server` command, enumerated from the program itself (a new command without a case
 * here fails): an unknown option and a bad option value exit 2, a well-formed command that fails
 * at run time (an unknown organization or id, a taken slug, a database it cannot open) exits 1;
 * either way one line on stderr and nothing on stdout.
 */
import type { Command } from 'commander';

import { buildProgram } from '../../server/src/cli/program';
import { runCli, type CliResult } from '../helpers/cli';
import { createTestDatabase, type TestDatabase } from '../helpers/database';

function leaves(command: Command, path: string[] = []): string[] {
	return command.commands.flatMap((sub) => (sub.commands.length === 0 ? [[...path, sub.name()].join(' ')] : leaves(sub, [...path, sub.name()])));
}

const COMMANDS = leaves(buildProgram());

let db: TestDatabase;
let userId: string;

const cli = (args: string[], env: Record<string, string> = {}) => runCli(args, { env: { DATABASE_URL: db.databaseUrl, ...env } });

function expectOneLine(result: CliResult, code: number, message?: RegExp): void {
	expect({ code: result.code, stdout: result.stdout }).toEqual({ code, stdout: '' });
	expect(result.stderr).toMatch(/^lms-server: [^\n]+\n$/);
	if (message) expect(result.stderr).toMatch(message);
}

/** At most a few processes at once: the machine is shared. */
async function inTurn<T>(items: T[], work: (item: T) => Promise<void>, width = 3): Promise<void> {
	const queue = [...items];
	await Promise.all(Array.from({ length: width }, async () => {
		for (let item = queue.shift(); item !== undefined; item = queue.shift()) await work(item);
	}));
}

beforeAll(async () => {
	db = await createTestDatabase();
	expect((await cli(['seed', '--demo', '--json'])).code).toBe(0);
	userId = (JSON.parse((await cli(['users', 'list', '--org', 'acme', '--role', 'student', '--limit', '1', '--json'])).stdout) as Array<{ id: string }>)[0].id;
}, 120_000);
afterAll(() => db.remove());

/** Runtime failures: the command line is right, the database says no (or cannot be opened). */
const RUNTIME: Record<string, { args: string[]; env?: Record<string, string>; message: RegExp }> = {
	start: { args: [], env: { PORT: '0', DATABASE_URL: 'nested' }, message: /database/ },
	migrate: { args: [], env: { DATABASE_URL: 'nested' }, message: /cannot open the database/ },
	seed: { args: ['--demo'], message: /already exist/ },
	'orgs list': { args: [], env: { DATABASE_URL: 'nested' }, message: /database/ },
	'orgs create': { args: ['--name', 'Acme again', '--slug', 'acme', '--plan', 'business'], message: /already exists/ },
	'orgs update': { args: ['nope', '--plan', 'business'], message: /No organization/ },
	'users list': { args: ['--org', 'nope'], message: /No organization/ },
	'users create': { args: ['--org', 'nope', '--email', 'x@example.test', '--name', 'X', '--role', 'student'], message: /No organization/ },
	'users update': { args: ['usr_nope', '--name', 'X'], message: /usr_nope|No user/i },
	'users deactivate': { args: ['usr_nope'], message: /usr_nope|No user/i },
	'users reactivate': { args: ['usr_nope'], message: /usr_nope|No user/i },
	'users set-password': { args: ['--email', 'nobody@example.test'], env: { LMS_PASSWORD: 'a-long-enough-password-1' }, message: /nobody@example\.test|No user/i },
	'users reset-link': { args: ['--email', 'nobody@example.test'], message: /nobody@example\.test|No user/i },
	'keys create': { args: ['--org', 'initech', '--label', 'L', '--scopes', 'read:users'], message: /Enterprise plan only/ },
	'keys list': { args: ['--org', 'nope'], message: /No organization/ },
	'keys show': { args: ['key_nope'], message: /No API key key_nope/ },
	'keys rotate': { args: ['key_nope'], message: /No API key key_nope/ },
	'keys revoke': { args: ['key_nope'], message: /No API key key_nope/ },
	'enrollments create': { args: ['--org', 'acme', '--student', 'usr_nope', '--course', 'crs_nope'], message: /./ },
	'enrollments update': { args: ['enr_nope', '--progress', '5'], message: /enr_nope|not found/i },
	'groups list': { args: ['--org', 'nope'], message: /No organization/ },
	'groups create': { args: ['--org', 'nope', '--name', 'G'], message: /No organization/ },
	'groups add-members': { args: ['nope', 'usr_x', '--org', 'acme'], message: /no group "nope"/ },
	'groups remove-members': { args: ['nope', 'usr_x', '--org', 'acme'], message: /no group "nope"/ },
	'assignments list': { args: ['--org', 'nope'], message: /No organization/ },
	'assignments create': { args: ['--org', 'acme', '--group', 'nope', '--course', 'crs_x'], message: /no group "nope"/ },
	'assignments delete': { args: ['asg_nope', '--org', 'acme'], message: /no assignment asg_nope/ },
	'demo activity': { args: ['--org', 'nope', '--rounds', '1'], message: /No organization/ },
	'webhooks list': { args: ['--org', 'nope'], message: /No organization/ },
	'webhooks delete': { args: ['whk_nope'], message: /No webhook endpoint/ },
};

/** Bad values: no database would accept them. Commands whose options take no checked value have none. */
const BAD_VALUES: Array<[string, () => string[], RegExp]> = [
	['orgs create', () => ['--name', 'N', '--slug', 'Not A Slug', '--plan', 'enterprise'], /slug/],
	['orgs create', () => ['--name', 'N', '--slug', 'fine-slug', '--plan', 'platinum'], /plan|platinum/i],
	['orgs update', () => ['acme', '--plan', 'platinum'], /plan|platinum/i],
	['users list', () => ['--org', 'acme', '--limit', '0'], /--limit/],
	['users list', () => ['--org', 'acme', '--role', 'wizard'], /wizard/],
	['users create', () => ['--org', 'acme', '--email', 'not-an-email', '--name', 'N', '--role', 'student'], /mail/i],
	['users create', () => ['--org', 'acme', '--email', 'new@example.test', '--name', 'N', '--role', 'wizard'], /role|wizard/i],
	['users update', () => [userId, '--external-id', 'x', '--clear-external-id'], /not both/],
	['users update', () => [userId], /nothing to change/],
	['users update', () => [userId, '--role', 'admin'], /admin/],
	['keys create', () => ['--org', 'acme', '--label', 'L', '--scopes', 'admin:all'], /Unknown scope/],
	['keys create', () => ['--org', 'acme', '--label', 'L', '--scopes', 'read:users', '--expires', 'someday'], /expir|days|date/i],
	['keys rotate', () => ['key_nope', '--expire-old-after', 'forever'], /./],
	['enrollments create', () => ['--org', 'acme', '--student', 'usr_x', '--course', 'crs_x', '--due', 'tomorrow'], /--due/],
	['enrollments update', () => ['enr_nope', '--progress', '101'], /--progress/],
	['enrollments update', () => ['enr_nope', '--status', 'paused'], /unknown status/],
	['enrollments update', () => ['enr_nope'], /nothing to change/],
	['groups list', () => ['--org', 'nope', '--limit', 'many'], /--limit/],
	['groups create', () => ['--org', 'acme', '--name', '   '], /name/i],
	['assignments list', () => ['--org', 'nope', '--limit', '0'], /--limit/],
	['assignments create', () => ['--org', 'nope', '--group', 'g', '--course', 'c', '--due-in-days', 'soon'], /--due-in-days/],
	['assignments create', () => ['--org', 'acme', '--group', 'g', '--course', 'c', '--on-removal', 'explode'], /explode/],
	['demo activity', () => ['--org', 'nope', '--every', '1ms'], /--every/],
	['demo activity', () => ['--org', 'nope', '--rounds', '0'], /--rounds/],
	['seed', () => [], /pass --demo/],
];

test('every command has a runtime-failure case here', () => {
	expect(Object.keys(RUNTIME).sort()).toEqual([...COMMANDS].sort());
	for (const [command] of BAD_VALUES) expect(COMMANDS).toContain(command);
});

test('an unknown option is a usage error (2) for every command', async () => {
	await inTurn(COMMANDS, async (command) => expectOneLine(await cli([...command.split(' '), '--no-such-option']), 2));
}, 300_000);

test('a bad option value exits 2, whatever the state', async () => {
	await inTurn(BAD_VALUES, async ([command, args, message]) => {
		const result = await cli([...command.split(' '), ...args()]);
		expect({ command, code: result.code }).toEqual({ command, code: 2 });
		expectOneLine(result, 2, message);
	});
}, 300_000);

test('a well-formed command that fails at run time exits 1', async () => {
	await inTurn(Object.entries(RUNTIME), async ([command, { args, env, message }]) => {
		// 'nested': a database under the test's own (regular) SQLite file, which cannot exist.
		const resolved = env?.DATABASE_URL === 'nested' ? { ...env, DATABASE_URL: `${db.databaseUrl}/nested/lms.sqlite` } : env;
		const result = await cli([...command.split(' '), ...args], resolved);
		expect({ command, code: result.code }).toEqual({ command, code: 1 });
		expectOneLine(result, 1, message);
	});
}, 300_000);
