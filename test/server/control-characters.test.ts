import { ApiKey } from '../../server/src/api-keys/model';
import { createKey } from '../../server/src/api-keys/lifecycle';
import { Organization } from '../../server/src/organizations/model';
import { createOrganization } from '../../server/src/organizations/service';
import { createUser } from '../../server/src/users/service';
import { User } from '../../server/src/users/model';
import { runCli, type CliResult } from '../helpers/cli';
import { startTestServer, type TestServer } from '../helpers/server';

/**
 * SPEC §14: labels and names with control characters are refused; the CLI never prints raw
 * control characters, even for text stored before the rule; one e-mail rule everywhere.
 */

const ESC = '\u001b';
const NASTY = [
	['an escape sequence', `evil${ESC}[2J`],
	['a terminal title', `x${ESC}]0;pwned\u0007y`],
	['a newline', 'two\nlines'],
	['a tab', 'a\tb'],
	['a C1 control', 'a\u009bb'],
	['a bidi override', 'abc\u202edcb'],
];
// (No NUL byte: an argv string cannot carry one. The settings form test sends one.)
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const RAW_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e]/;

let server: TestServer;
const cli = (args: string[], env: Record<string, string> = {}) => runCli(args, { env: { DATABASE_URL: server.databaseUrl, ...env } });

/** Refused with one clean line; `code` 2 for a bad option value, 1 for a runtime failure (docs/operating.md). */
function expectRefused(result: CliResult, message: RegExp, code = 2): void {
	expect(result.code).toBe(code);
	expect(result.stdout).toBe('');
	expect(result.stderr).toMatch(/^lms-server: [^\n]+\n$/);
	expect(result.stderr).toMatch(message);
	expect(result.stderr.slice(0, -1)).not.toMatch(RAW_CONTROL);
}

beforeAll(async () => {
	server = await startTestServer();
});
afterAll(() => server.stop());

describe('key labels', () => {
	test.each(NASTY)('keys create refuses a label with %s', async (_what, label) => {
		const before = await ApiKey.count();
		expectRefused(
			await cli(['keys', 'create', '--org', 'acme', '--label', label, '--scopes', 'read:users']),
			/label contains control characters .*plain text/,
		);
		expect(await ApiKey.count()).toBe(before);
	});

	test('a label stored before the rule is printed escaped by keys list, rotate and revoke', async () => {
		const { id } = await server.createKey('acme', ['read:users'], 'placeholder');
		const stored = `pre${ESC}[2J${ESC}]0;pwned\u0007\u009bpost`;
		await ApiKey.update({ label: stored }, { where: { id } });

		const list = await cli(['keys', 'list', '--org', 'acme']);
		expect(list.code).toBe(0);
		expect(list.stdout).not.toMatch(RAW_CONTROL);
		expect(list.stdout).toContain('pre\\x1b[2J\\x1b]0;pwned\\x07\\x9bpost');

		const json = await cli(['keys', 'list', '--org', 'acme', '--json']);
		expect(json.stdout).not.toMatch(RAW_CONTROL);
		expect((JSON.parse(json.stdout) as Array<{ id: string; label: string }>).find((k) => k.id === id)?.label).toBe(stored);

		const rotated = await cli(['keys', 'rotate', id]);
		expect(rotated.code).toBe(0);
		expect(rotated.stdout).not.toMatch(RAW_CONTROL);
		const replacement = /Its replacement is (key_\S+)/.exec(rotated.stdout)![1];

		const revoked = await cli(['keys', 'revoke', replacement]);
		expect(revoked.code).toBe(0);
		expect(revoked.stdout).not.toMatch(RAW_CONTROL);
		expect(revoked.stdout).toContain('pre\\x1b[2J');

		// A rule error that quotes the label is escaped too.
		const again = await cli(['keys', 'revoke', replacement]);
		expectRefused(again, /already revoked/, 1);
	});
});

describe('users created through the CLI', () => {
	const create = (email: string, name: string) =>
		cli(['users', 'create', '--org', 'acme', '--email', email, '--name', name, '--role', 'student', '--json']);

	test.each(NASTY)('a name with %s is refused', async (_what, name) => {
		expectRefused(await create(`n${Math.random().toString(36).slice(2)}@acme.test`, name), /name contains control characters/);
	});

	test.each([
		['an escape', `a${ESC}[2J@acme.test`],
		['no dot in the domain', 'a@localhost'],
		['two @', 'a@b@acme.test'],
		['a space', 'a b@acme.test'],
		['no local part', '@acme.test'],
		['over 254 characters', `${'a'.repeat(64)}@${'d'.repeat(190)}.test`],
		['a part of the domain over 63 characters (no browser lets it be typed at sign-in)', `a@${'d'.repeat(64)}.test`],
	])('an e-mail with %s is refused with the rule, never "unexpected error"', async (_what, email) => {
		const result = await create(email, 'Someone');
		expectRefused(result, /is not an e-mail address such as name@example\.com/);
		expect(result.stderr).not.toMatch(/unexpected error/);
	});

	test('a@b.c is an e-mail address: created by the CLI and found by the API filter', async () => {
		const result = await create('a@b.c', 'Short Address');
		expect(result).toMatchObject({ code: 0, stderr: '' });
		expect(JSON.parse(result.stdout)).toMatchObject({ email: 'a@b.c', role: 'student' });
		expect(await User.count({ where: { emailLower: 'a@b.c' } })).toBe(1);

		const { key } = await server.createKey('acme', ['read:users']);
		const res = await fetch(`${server.baseUrl}/api/v1/users?email=A@B.C`, { headers: { Authorization: `Bearer ${key}` } });
		expect(res.status).toBe(200);
		const body = (await res.json()) as { data: Array<{ email: string }> };
		expect(body.data.map((u) => u.email)).toEqual(['a@b.c']);
	});

	test.each(['a@localhost', 'a b@acme.test', 'a@b@c.d', `a${ESC}@b.c`])(
		'the API filter refuses %j by the same rule, with the same sentence',
		async (email) => {
			const { key } = await server.createKey('acme', ['read:users']);
			const res = await fetch(`${server.baseUrl}/api/v1/users?email=${encodeURIComponent(email)}`, {
				headers: { Authorization: `Bearer ${key}` },
			});
			expect(res.status).toBe(400);
			const body = (await res.json()) as { errors: Array<{ param: string; message: string }> };
			expect(body.errors).toEqual([
				expect.objectContaining({ param: 'email', message: expect.stringMatching(/^email must be an e-mail address such as name@example\.com/) }),
			]);
		},
	);

	test('the model holds the same rule for any other writer', async () => {
		const acme = (await User.findOne({ where: { emailLower: 'a@b.c' } }))!;
		await expect(User.create({ organizationId: acme.organizationId, email: 'x@localhost', name: 'X', role: 'student' })).rejects.toThrow(
			/email must be an e-mail address such as name@example\.com/,
		);
		const ok = await User.create({ organizationId: acme.organizationId, email: 'x@y.z', name: 'X', role: 'student' });
		expect(ok.emailLower).toBe('x@y.z');
	});
});

/**
 * Issue 28: one rule (common/text.ts) and one character set for every typed field, whichever
 * door the text comes through: the domain rules (labels, names) and the request schemas (a
 * webhook's URL and description, which accepted a bidi override before).
 */
describe('every typed field refuses the same characters', () => {
	const EVERY = [...NASTY, ['a line separator', 'a\u2028b'], ['a bidi isolate', 'a\u2066b'], ['DEL', 'a\u007fb']];
	let made = 0;
	const fields: Array<[string, (text: string) => Promise<unknown>]> = [
		['a key label', async (label) => createKey({ organizationId: (await acme()).id, label, scopes: ['read:users'], actor: { kind: 'cli' } })],
		['a user name', async (name) => createUser({ organization: await acme(), email: `probe${++made}@acme.test`, name, role: 'student' })],
		['an organization name', (name) => createOrganization({ name, slug: `probe-${++made}`, plan: 'starter' })],
	];
	const acme = async () => (await Organization.findOne({ where: { slug: 'acme' } }))!;

	test.each(fields.flatMap(([field, write]) => EVERY.map(([what, text]) => [field, what, write, text] as const)))(
		'%s with %s is refused',
		async (_field, _what, write, text) => {
			await expect(write(text)).rejects.toMatchObject({ message: expect.stringMatching(/contains control characters/) });
		},
	);

	test.each(EVERY)('a webhook description or URL with %s is a 400 naming the field', async (_what, text) => {
		const { key } = await server.createKey('acme', ['read:users', 'manage:webhooks']);
		for (const [param, body] of [
			['description', { url: 'https://hooks.example/in', events: ['*'], description: text }],
			['url', { url: `https://hooks.example/${text}`, events: ['*'] }],
		] as const) {
			const res = await fetch(`${server.baseUrl}/api/v1/webhook_endpoints`, {
				method: 'POST',
				headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
				body: JSON.stringify(body),
			});
			expect(res.status).toBe(400);
			const problem = (await res.json()) as { errors: Array<{ param: string; code: string; message: string }> };
			expect(problem.errors).toEqual([{ param, code: 'invalid_format', message: expect.stringMatching(new RegExp(`^${param} contains control characters`)) }]);
		}
	});
});
