import { runCli } from '../helpers/cli';
import { createTestDatabase, type TestDatabase } from '../helpers/database';
import { startInstance, type Instance } from '../helpers/instances';
import { waitUntil } from '../helpers/wait';
import { redactKeys } from '../../server/src/common/redact';

/**
 * SPEC §14: no key, in any encoding, in any header or URL, reaches a log line. A real
 * `lms-server start` process gets a real key written every way we know, in every place a client
 * controls; then its log stream is scanned for each of those spellings and for the key's random
 * part on its own.
 */

const pct = (text: string, lower = false) =>
	[...text].map((c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`).map((e) => (lower ? e : e.toUpperCase())).join('');

function spellings(key: string): Record<string, string> {
	const rest = key.slice(4);
	return {
		plain: key,
		'percent-encoded underscore': `lms%5F${rest}`,
		'lower-case percent-encoded underscore': `lms%5f${rest}`,
		'double-encoded underscore': `lms%255F${rest}`,
		'triple-encoded underscore': `lms%25255F${rest}`,
		'every character percent-encoded': pct(key),
		'every character percent-encoded, lower case': pct(key, true),
		'every character double-encoded': pct(key).replace(/%/g, '%25'),
		'HTML entity': `lms&#95;${rest}`,
		'hex HTML entity': `lms&#x5f;${rest}`,
		'JSON escape': `lms\\u005f${rest}`,
		base64: Buffer.from(key).toString('base64'),
		base64url: Buffer.from(key).toString('base64url'),
		'base64 of user:key (Basic)': Buffer.from(`n8n:${key}`).toString('base64'),
		hex: Buffer.from(key).toString('hex'),
	};
}

let db: TestDatabase;
let server: Instance;
let key: string;

beforeAll(async () => {
	db = await createTestDatabase();
	const env = { DATABASE_URL: db.databaseUrl };
	expect((await runCli(['migrate'], { env })).code).toBe(0);
	expect((await runCli(['seed', '--demo', '--json'], { env })).code).toBe(0);
	const created = await runCli(['keys', 'create', '--org', 'acme', '--label', 'log scan', '--scopes', 'read:users', '--json'], { env });
	key = (JSON.parse(created.stdout) as { key: string }).key;
	server = await startInstance({ ...env, LOG_LEVEL: 'debug', RATE_LIMIT_PER_MINUTE: '100000' });
}, 60_000);

afterAll(async () => {
	await server?.stop();
	await db?.remove();
});

test('no spelling of a key sent in a URL or a header reaches the log stream', async () => {
	const sent = spellings(key);
	for (const value of Object.values(sent)) {
		// In a URL, `#` would start the fragment and `\\` become `/`: a client must encode them to send them.
		const inUrl = value.replace(/#/g, '%23').replace(/\\/g, '%5C');
		const requests: Array<[string, Record<string, string>]> = [
			[`/api/v1/users/${inUrl}`, {}],
			[`/api/v1/users?email=${inUrl}`, {}],
			[`/api/v1/users?${inUrl}=1`, {}],
			[`/login?next=${inUrl}`, {}],
			[`/nowhere/${inUrl}`, {}],
			['/api/v1/users', { 'User-Agent': `n8n/1.0 ${value}` }],
			['/api/v1/users', { 'X-Forwarded-For': `${value}, 10.0.0.1` }],
			['/api/v1/users', { Referer: `https://app.example/?key=${value}` }],
			['/api/v1/users', { 'X-Api-Key': value, Authorization: `Bearer ${value}` }],
			['/api/v1/users', { Authorization: `Basic ${value}`, Host: `h${value.slice(0, 20).replace(/[^a-z0-9]/gi, '')}.example` }],
			['/api/v1/users', { Authorization: `Bearer ${key}`, 'X-Request-Id': value.slice(0, 100) }],
		];
		for (const [path, headers] of requests) {
			const res = await fetch(server.url + path, { headers, redirect: 'manual' });
			await res.arrayBuffer();
		}
	}
	// The requests were logged (so the scan below looked at something), with their paths: the
	// access lines reach stdout after the answers, so wait for them.
	const loggedLines = () => server.output().split('\n').filter((l) => l.startsWith('{') && l.includes('"url":"/api/v1/users/')).length;
	await waitUntil(() => loggedLines() >= Object.keys(sent).length, { what: 'every access line logged' });
	expect(loggedLines()).toBe(Object.keys(sent).length);
	const logs = server.output();
	expect(logs).toContain('lms_[redacted]');

	for (const [how, value] of Object.entries(sent)) {
		for (const written of [value, value.replace(/#/g, '%23').replace(/\\/g, '%5C'), value.replace(/\\/g, '\\\\')]) {
			expect({ how, found: logs.includes(written) }).toEqual({ how, found: false });
		}
	}
	// Nor any fragment long enough to matter: the key's random part, plain or percent-encoded.
	const random = key.slice(4, 36);
	for (const part of [random.slice(0, 12), random.slice(10, 22), random.slice(20, 32), key.slice(-10)]) {
		expect(logs).not.toContain(part);
	}
	expect(logs.toLowerCase()).not.toContain(pct(random.slice(0, 8)).toLowerCase());
});

test('the redaction leaves ordinary text alone', () => {
	const line = '{"url":"/api/v1/users?email=alice%40acme.example&role=student","ua":"Mozilla/5.0 (X11; Linux x86_64)","id":"req_AbCdEf0123456789wxyz"}';
	expect(redactKeys(line)).toBe(line);
	expect(redactKeys('masked lms_AbCd…wxyz')).toBe('masked lms_[redacted]…wxyz');
});

test('a key in base64 or hex is redacted at every alignment, in every alphabet and case', () => {
	const key = `lms_${'Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z'}`;
	// 0–5 bytes before the key put it at each of the three places in base64's 3-byte groups
	// (and the run may start with text that is not base64 at all).
	for (const before of ['', 'u', 'us', 'usr', 'user', 'user:']) {
		for (const encoding of ['base64', 'base64url'] as const) {
			const encoded = Buffer.from(`${before}${key}`).toString(encoding);
			const line = `{"authorization":"Basic ${encoded}","url":"/x/${encoded}"}`;
			expect({ before, encoding, line: redactKeys(line) }).toEqual({ before, encoding, line: '{"authorization":"Basic lms_[redacted]","url":"/x/lms_[redacted]"}' });
		}
	}
	const hex = Buffer.from(key).toString('hex');
	for (const spelled of [hex, hex.toUpperCase(), hex.replace(/[a-f]/g, (c, i: number) => (i % 2 ? c.toUpperCase() : c))]) {
		expect(redactKeys(`token=${spelled};`)).toBe('token=lms_[redacted];');
	}
});
