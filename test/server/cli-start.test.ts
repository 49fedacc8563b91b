import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';

import { runCli } from '../helpers/cli';
import { createTestDatabase, type TestDatabase } from '../helpers/database';

const CLI = join(__dirname, '..', '..', 'server', 'dist', 'cli.js');

interface Running {
	child: ChildProcessWithoutNullStreams;
	/** stdout: the JSON log stream. */
	output(): string;
	/** stderr: what is for the person at the terminal (the demo banner). */
	banner(): string;
	/** Resolves with the text printed once the server says where it listens. */
	ready: Promise<string>;
	exited: Promise<number | null>;
}

function start(args: string[], env: Record<string, string>, nodeArgs: string[] = []): Running {
	const child = spawn(process.execPath, [...nodeArgs, CLI, 'start', ...args], {
		env: { PATH: process.env.PATH, PORT: '0', ...env },
	});
	let stdout = '';
	let stderr = '';
	const ready = new Promise<string>((resolve, reject) => {
		const look = () => {
			if (/listening on http/.test(stdout) && (!args.includes('--demo') || /Try it:|Demo data not loaded/.test(stderr))) {
				resolve(stdout + stderr);
			}
		};
		child.stdout.on('data', (chunk: Buffer) => {
			stdout += chunk.toString('utf8');
			look();
		});
		child.stderr.on('data', (chunk: Buffer) => {
			stderr += chunk.toString('utf8');
			look();
		});
		child.on('exit', () => reject(new Error(`exited early:\n${stdout}${stderr}`)));
	});
	const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
	return { child, output: () => stdout, banner: () => stderr, ready, exited };
}

const urlIn = (text: string) => /listening on (http:\/\/[\d.]+:\d+)/.exec(text)![1];

describe('lms-server start', () => {
	let db: TestDatabase;

	beforeEach(async () => {
		db = await createTestDatabase();
	});
	afterEach(() => db.remove());

	it('a promise nothing handled is a fatal line in the JSON log, then a drain and exit code 1', async () => {
		// Preloaded into the server's process: SIGUSR2 makes a rejection no code awaits.
		const preload = join(__dirname, 'fixtures', 'unhandled-rejection.js');
		const server = start([], { DATABASE_URL: db.databaseUrl }, ['--require', preload]);
		await server.ready;
		server.child.kill('SIGUSR2');
		expect(await server.exited).toBe(1);
		const fatal = server
			.output()
			.split('\n')
			.filter((line) => line.startsWith('{'))
			.map((line) => JSON.parse(line) as { level: number; msg: string; err?: { message: string } })
			.find((entry) => entry.level === 60);
		expect(fatal).toMatchObject({ msg: expect.stringContaining('nothing handled it'), err: { message: 'nobody awaited this' } });
	});

	it('the log is complete at shutdown: every request answered has its access line, then the drain, then exit 0', async () => {
		const server = start([], { DATABASE_URL: db.databaseUrl });
		const url = urlIn(await server.ready);
		const answered = await Promise.all(Array.from({ length: 40 }, (_, i) => fetch(`${url}/healthz?n=${i}`)));
		expect(answered.map((res) => res.status)).toEqual(answered.map(() => 200));
		server.child.kill('SIGTERM');
		expect(await server.exited).toBe(0);
		// Every line whole (written asynchronously, flushed when the process exits).
		const entries = server
			.output()
			.trimEnd()
			.split('\n')
			.map((line) => JSON.parse(line) as { msg: string; req?: { url: string } });
		const logged = entries.filter((e) => e.msg === 'request completed').map((e) => e.req!.url);
		expect(logged.sort()).toEqual(Array.from({ length: 40 }, (_, i) => `/healthz?n=${i}`).sort());
		expect(entries.at(-1)).toMatchObject({ msg: expect.stringContaining('draining in-flight requests') });
	});

	it('--demo on an empty database prints a login and a working all-scope key on stderr, and drains on SIGTERM', async () => {
		const server = start(['--demo'], { DATABASE_URL: db.databaseUrl });
		const url = urlIn(await server.ready);
		const login = /Sign in at \S+ as (\S+@acme\.test) with password (\S+)/.exec(server.banner());
		expect(login).not.toBeNull();
		const key = /Demo API key for acme[^:]*: (lms_[0-9A-Za-z]{38})/.exec(server.banner())![1];

		for (const path of ['users', 'courses', 'enrollments', 'certificates']) {
			const res = await fetch(`${url}/api/v1/${path}`, { headers: { Authorization: `Bearer ${key}` } });
			expect(res.status).toBe(200);
		}
		const courses = (await (await fetch(`${url}/api/v1/courses`, { headers: { Authorization: `Bearer ${key}` } })).json()) as {
			pagination: { total: number };
		};
		expect(courses.pagination.total).toBe(9);

		// The demo's webhooks may reach n8n on this machine (loopback), nothing else that is not public.
		const subscribe = (hook: string) =>
			fetch(`${url}/api/v1/webhook_endpoints`, {
				method: 'POST',
				headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
				body: JSON.stringify({ url: hook, events: ['*'] }),
			});
		expect((await subscribe('http://127.0.0.1:5678/webhook/demo')).status).toBe(201);
		for (const hook of ['http://10.0.0.8/webhook', 'http://192.168.1.20:5678/webhook']) expect((await subscribe(hook)).status).toBe(422);

		// stdout is the log stream: JSON lines only, never the banner, the password or the key.
		const logLines = server.output().trimEnd().split('\n');
		expect(logLines.length).toBeGreaterThan(0);
		for (const line of logLines) expect(() => JSON.parse(line)).not.toThrow();
		expect(server.output()).not.toContain(key);
		expect(server.output()).not.toContain(login![2]);
		expect(server.output()).not.toMatch(/Demo|Sign in at/);

		server.child.kill('SIGTERM');
		expect(await server.exited).toBe(0);

		// A second start finds data and says so instead of seeding again.
		const again = start(['--demo'], { DATABASE_URL: db.databaseUrl });
		await again.ready;
		expect(again.banner()).toMatch(/Demo data not loaded/);
		again.child.kill('SIGINT');
		expect(await again.exited).toBe(0);
	});

	it('plain start never seeds', async () => {
		const server = start([], { DATABASE_URL: db.databaseUrl });
		const url = urlIn(await server.ready);
		expect((await fetch(`${url}/healthz`)).status).toBe(200);
		expect(server.output() + server.banner()).not.toMatch(/Demo|lms_[0-9A-Za-z]{38}/);
		server.child.kill('SIGTERM');
		expect(await server.exited).toBe(0);

		const seeded = await runCli(['seed', '--demo', '--json'], { env: { DATABASE_URL: db.databaseUrl } });
		expect(seeded.code).toBe(0);
	});

	it('--no-migrate leaves an unmigrated database alone; migrate applies, then reports up to date', async () => {
		const server = start(['--no-migrate'], { DATABASE_URL: db.databaseUrl });
		await server.ready;
		server.child.kill('SIGTERM');
		expect(await server.exited).toBe(0);

		const migrated = await runCli(['migrate'], { env: { DATABASE_URL: db.databaseUrl } });
		expect(migrated).toMatchObject({ code: 0, stdout: expect.stringMatching(/^Applied 0001-initial/) });
		const again = await runCli(['migrate'], { env: { DATABASE_URL: db.databaseUrl } });
		expect(again.stdout).toBe('The database is up to date.\n');
	});

	it('a port in use is one line and exit 1', async () => {
		const blocker = createServer();
		await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
		try {
			const port = String((blocker.address() as AddressInfo).port);
			const result = await runCli(['start'], { env: { DATABASE_URL: db.databaseUrl, PORT: port } });
			expect(result.code).toBe(1);
			expect(result.stderr).toBe(`lms-server: cannot listen on 127.0.0.1:${port} (EADDRINUSE): choose another PORT or HOST.\n`);
		} finally {
			blocker.close();
		}
	});
});
