import { spawn } from 'node:child_process';
import { join } from 'node:path';

import { runCli } from '../helpers/cli';
import { startTestServer, type TestServer } from '../helpers/server';
import { call, feedCaughtUp } from './api-fixtures';

/** `lms-server demo activity` (SPEC §10): the demo comes alive, and every change is in the feed. */

let server: TestServer;
let key: string;
beforeAll(async () => {
	server = await startTestServer({ env: { RATE_LIMIT_PER_MINUTE: '1000000' } });
	key = (await server.createKey('acme', ['read:users', 'read:enrollments'])).key;
});
afterAll(() => server.stop());

const CLI = join(__dirname, '..', '..', 'server', 'dist', 'cli.js');

test('rounds of activity write their events; the demo seed wrote none', async () => {
	expect((await call(server, '/api/v1/events', { key })).body).toEqual({ data: [], has_more: false });
	const result = await runCli(['demo', 'activity', '--org', 'acme', '--every', '100ms', '--rounds', '12'], { env: { DATABASE_URL: server.databaseUrl } });
	expect(result).toMatchObject({ code: 0, stderr: '' });
	const lines = result.stdout.trim().split('\n');
	expect(lines[0]).toBe('Demo activity in acme every 100ms; Ctrl-C stops.');
	expect(lines.at(-1)).toBe('Demo activity stopped.');
	const happenings = lines.slice(1, -1);
	expect(happenings.length).toBeGreaterThanOrEqual(12);

	await feedCaughtUp(server, key, server.demo!.organizations.find((o) => o.slug === 'acme')!.id);
	const events = (await call(server, '/api/v1/events?limit=100', { key })).body.data as Array<{ type: string; data: { object: { id: string } } }>;
	expect(events.length).toBeGreaterThanOrEqual(happenings.length);
	// Every enrollment the output names has its event in the feed.
	for (const id of happenings.join(' ').match(/enr_[A-Za-z0-9]+/g) ?? []) {
		expect(events.some((e) => e.data.object.id === id)).toBe(true);
	}
	for (const e of events) expect(e.type).toMatch(/^(user\.created|enrollment\.(created|progressed|completed|withdrawn|reactivated)|certificate\.issued)$/);
	// Completions come with their certificates.
	expect(events.filter((e) => e.type === 'certificate.issued').length).toBe(events.filter((e) => e.type === 'enrollment.completed').length);
});

test('Ctrl-C stops it at once, exit 0', async () => {
	const child = spawn(process.execPath, [CLI, 'demo', 'activity', '--every', '30s'], { env: { PATH: process.env.PATH, DATABASE_URL: server.databaseUrl } });
	let out = '';
	child.stdout.on('data', (c: Buffer) => (out += c.toString()));
	await new Promise<void>((resolve) => {
		const look = () => (out.includes('Ctrl-C stops') ? resolve() : undefined);
		child.stdout.on('data', look);
	});
	await new Promise((r) => setTimeout(r, 300));
	const started = Date.now();
	child.kill('SIGINT');
	const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
	expect(code).toBe(0);
	expect(Date.now() - started).toBeLessThan(5_000);
	expect(out).toContain('Demo activity stopped.');
});

test('bad options are one line and a non-zero exit', async () => {
	for (const args of [['--every', 'soon'], ['--every', '1ms'], ['--org', 'nope'], ['--rounds', '0']]) {
		const result = await runCli(['demo', 'activity', ...args], { env: { DATABASE_URL: server.databaseUrl } });
		expect(result.code).not.toBe(0);
		expect(result.stderr).toMatch(/^lms-server: .+\n$/);
	}
});
