import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { loadConfig } from '../../server/src/config';
import { database } from '../../server/src/db';
import { createApp } from '../../server/src/http/app';
import { createLogger } from '../../server/src/http/logging';
import { runCli } from '../helpers/cli';
import { createTestDatabase } from '../helpers/database';
import { freePort } from '../helpers/ports';
import { startTestServer, type TestServer } from '../helpers/server';
import { waitUntil } from '../helpers/wait';
import { call, expectProblem } from './api-fixtures';

/**
 * Several processes share one limit through Redis. Runs against a redis-server of its own (it
 * stops and restarts it), so it needs the redis-server binary. Without it the suite is skipped
 * loudly on a developer's machine, and fails under CI=true: CI must never pass by skipping.
 */
const hasRedis = spawnSync('redis-server', ['--version']).status === 0;
const describeRedis = hasRedis ? describe : describe.skip;
if (!hasRedis) {
	if (process.env.CI === 'true') {
		test('redis-server is installed (required under CI=true)', () => {
			throw new Error('redis-server not found on PATH: install it (Debian: apt-get install redis-server); CI must not skip the shared-store tests');
		});
	} else {
		console.warn('*** redis-server not found on PATH: SKIPPING the shared-store (Redis) tests; under CI=true this fails ***');
	}
}

const LIMIT = 6;

async function startRedis(port: number): Promise<ChildProcess> {
	const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'pipe' });
	await new Promise<void>((resolve, reject) => {
		child.stdout.on('data', (chunk: Buffer) => {
			if (chunk.toString().includes('Ready to accept connections')) resolve();
		});
		child.once('exit', (code) => reject(new Error(`redis-server exited with ${code}`)));
	});
	return child;
}

async function stopRedis(child: ChildProcess): Promise<void> {
	if (child.exitCode !== null) return;
	await new Promise((r) => {
		child.once('exit', r);
		child.kill('SIGTERM');
	});
}

describeRedis('shared Redis store', () => {
	let redis: ChildProcess;
	let redisPort: number;
	let first: TestServer;
	let second: Server;
	let secondUrl: string;
	let secondApp: ReturnType<typeof createApp>;

	beforeAll(async () => {
		redisPort = await freePort();
		redis = await startRedis(redisPort);
		const env = { RATE_LIMIT_PER_MINUTE: String(LIMIT), REDIS_URL: `redis://127.0.0.1:${redisPort}` };
		first = await startTestServer({ seed: false, env });
		// A second instance of the app over the same database and Redis: another "process".
		const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', DATABASE_URL: first.databaseUrl, LOG_LEVEL: 'silent', ...env });
		// The same process, so the same database: the models are bound once per process.
		secondApp = createApp({ config, logger: createLogger(config), db: database() });
		second = createServer(secondApp);
		await new Promise<void>((r) => second.listen(0, '127.0.0.1', () => r()));
		secondUrl = `http://127.0.0.1:${(second.address() as AddressInfo).port}`;
	});

	afterAll(async () => {
		await new Promise((r) => second.close(r));
		await secondApp.locals.limitStore?.close();
		await first.stop();
		await stopRedis(redis);
	});

	test('the limit holds across instances, not per instance', async () => {
		const statuses: number[] = [];
		for (let i = 0; i < LIMIT; i++) {
			const base = i % 2 === 0 ? first : { baseUrl: secondUrl };
			statuses.push((await call(base, '/api/v1/openapi.json')).status);
		}
		expect(statuses).toEqual(Array(LIMIT).fill(200));
		const limited = await call(first, '/api/v1/openapi.json');
		expectProblem(limited, 429, 'rate_limited');
		expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
		expectProblem(await call({ baseUrl: secondUrl }, '/api/v1/openapi.json'), 429, 'rate_limited');
	});

	test('/readyz reports the Redis store', async () => {
		const reply = await call(first, '/readyz');
		expect(reply.body).toEqual({ status: 'ready', checks: { database: 'ok', rate_limit_store: 'redis' } });
	});

	test('Redis down: fail closed with 503 rate_limit_unavailable (health stays live), then recover', async () => {
		await stopRedis(redis);
		const reply = await call(first, '/api/v1/openapi.json');
		expectProblem(reply, 503, 'rate_limit_unavailable');
		expect(reply.headers.get('retry-after')).toBe('5');
		expect((await call(first, '/healthz')).status).toBe(200);
		const ready = await call(first, '/readyz');
		expectProblem(ready, 503, 'not_ready');
		expect(ready.body.checks).toEqual({ rate_limit_store: 'unreachable' });

		// A fresh Redis on the same port (counters gone): the store reconnects by itself.
		redis = await startRedis(redisPort);
		await waitUntil(async () => (await call(first, '/api/v1/openapi.json')).status === 200, { timeout: 5000, interval: 100, what: 'the store reconnected' });
	});
});

test('REDIS_URL that does not answer: start waits a bounded time, then exits 1 naming the reason (never listens, never "[object Object]")', async () => {
	const database = await createTestDatabase();
	try {
		const nobody = await freePort();
		const result = await runCli(['start'], {
			env: { DATABASE_URL: database.databaseUrl, PORT: '0', REDIS_URL: `redis://127.0.0.1:${nobody}` },
		});
		expect(result.code).toBe(1);
		expect(result.stderr).toBe(
			`lms-server: cannot reach Redis at REDIS_URL after 10 s (connect ECONNREFUSED 127.0.0.1:${nobody}): the per-IP limit is shared through it, so the server does not start without it. Start Redis, correct REDIS_URL, or unset it to count per process.\n`,
		);
		expect(result.stdout).not.toContain('listening');
		expect(result.stdout).not.toContain('[object Object]');
		expect(result.stdout).toContain(`"reason":"connect ECONNREFUSED 127.0.0.1:${nobody}"`);
	} finally {
		await database.remove();
	}
}, 30_000);
