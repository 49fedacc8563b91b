import type { Server } from 'node:http';
import { Writable } from 'node:stream';

import { createKey as issueKey, revokeKey as revokeApiKey, rotateKey as rotateApiKey } from '../../server/src/api-keys/lifecycle';
import { loadConfig } from '../../server/src/config';
import { seedDemo, type DemoResult } from '../../server/src/demo/seed';
import { createLogger } from '../../server/src/http/logging';
import { httpRequests } from '../../server/src/metrics/registry';
import { findOrganization } from '../../server/src/organizations/service';
import { startServer } from '../../server/src/server';
import { createTestDatabase, testRedisEnv, type TestDatabase, type TestDialect } from './database';
import { waitUntil } from './wait';

export interface TestServer {
	/** The origin, e.g. http://127.0.0.1:40123 (the nodes add /api/v1 themselves). */
	baseUrl: string;
	/** The test's own database (a temporary SQLite file, or a PostgreSQL database), for the CLI. */
	databaseUrl: string;
	dialect: TestDialect;
	/** `memory` or `redis` (TEST_REDIS=1, or REDIS_URL in `env`): what /readyz reports. */
	limitStore: string;
	/** Everything the database holds, as bytes to search (see TestDatabase.storedBytes). */
	storedBytes(): Promise<Buffer>;
	/** The demo data (SPEC §8) unless started with `seed: false`. */
	demo: DemoResult | undefined;
	createKey(orgSlug: string, scopes: string[], label?: string): Promise<{ id: string; key: string }>;
	rotateKey(id: string): Promise<{ id: string; key: string }>;
	revokeKey(id: string): Promise<void>;
	/** Every JSON log line written so far, newline-separated. */
	logs(): string;
	/**
	 * Requests this server has answered so far, as it counts them itself (`lms_http_requests_total`,
	 * GET /metrics), whose route pattern and method match `filter`: `route` a pattern like
	 * '/api/v1/enrollments/batch', or a RegExp; `status` a number. Final for every request answered
	 * before the call. Counted by the server, not parsed from its log.
	 */
	requests(filter?: RequestFilter): Promise<number>;
	/** The listening HTTP server; its 'request' listener is the Express app (to list its routes). */
	httpServer: Server;
	stop(): Promise<void>;
}

/**
 * The real server, in this process, on an ephemeral port and a database of its own, with the
 * production defaults (rate limit included) unless `env` overrides them. The database is a
 * temporary SQLite file, or with TEST_DATABASE=postgres a fresh PostgreSQL database (dropped by
 * stop()); with TEST_REDIS=1 the limit store is Redis under a prefix of its own (see
 * ./database.ts). The developer's own environment is not read otherwise, so a local
 * DATABASE_URL can never be touched by a test.
 *
 * Models are bound per process, so run one test server at a time in a test file.
 */
export async function startTestServer(opts: { env?: Record<string, string>; seed?: boolean } = {}): Promise<TestServer> {
	// A test that names its own Redis keeps it.
	const redis = opts.env?.REDIS_URL === undefined ? await testRedisEnv() : {};
	const database: TestDatabase = await createTestDatabase();
	const config = loadConfig({
		PORT: '0',
		HOST: '127.0.0.1',
		DATABASE_URL: database.databaseUrl,
		LOG_LEVEL: 'info',
		...redis,
		...opts.env,
	});

	const lines: string[] = [];
	const capture = new Writable({
		write(chunk: Buffer, _encoding, done) {
			lines.push(chunk.toString('utf8'));
			done();
		},
	});
	const server = await startServer({ config, logger: createLogger(config, capture), migrate: true }).catch(async (err: unknown) => {
		await database.remove();
		throw err;
	});
	const demo = opts.seed === false ? undefined : await seedDemo();

	const actor = { kind: 'cli' } as const;
	const since = await requestSeries();
	return {
		baseUrl: server.url.replace(/\/$/, ''),
		databaseUrl: config.databaseUrl,
		dialect: database.dialect,
		limitStore: config.redisUrl ? 'redis' : 'memory',
		storedBytes: () => database.storedBytes(),
		demo,
		async createKey(orgSlug, scopes, label = 'test key') {
			const organization = await findOrganization(orgSlug);
			const { apiKey, secret } = await issueKey({ organizationId: organization.id, label, scopes, actor });
			return { id: apiKey.id, key: secret };
		},
		async rotateKey(id) {
			const { apiKey, secret } = await rotateApiKey({ keyId: id, actor });
			return { id: apiKey.id, key: secret };
		},
		async revokeKey(id) {
			await revokeApiKey({ keyId: id, actor });
		},
		httpServer: server.httpServer,
		logs: () => lines.join(''),
		requests: (filter = {}) => answeredRequests(server.url, since, filter),
		async stop() {
			await server.close();
			await database.remove();
		},
	};
}

interface RequestFilter {
	route?: string | RegExp;
	method?: string;
	status?: number;
}

type Series = Array<{ labels: Record<string, string | number | undefined>; value: number }>;

/** Every series of the server's request counter (the process's registry): labels and value. */
async function requestSeries(): Promise<Series> {
	return (await httpRequests.get()).values;
}

function sum(series: Series, { route, method, status }: RequestFilter): number {
	return series
		.filter(({ labels }) => route === undefined || (typeof route === 'string' ? labels.route === route : route.test(String(labels.route))))
		.filter(({ labels }) => method === undefined || labels.method === method)
		.filter(({ labels }) => status === undefined || labels.status === String(status))
		.reduce((total, { value }) => total + value, 0);
}

/**
 * The requests matching `filter` counted since `since`. A /healthz request goes last and the count
 * is read once the server has counted it: answers are counted as they are sent, in order, so every
 * answer sent before is counted too, and the count needs no fixed wait.
 */
async function answeredRequests(url: string, since: Series, filter: RequestFilter): Promise<number> {
	const markers = sum(await requestSeries(), { route: '/healthz' });
	await fetch(new URL('/healthz', url));
	const series = await waitUntil(
		async () => {
			const now = await requestSeries();
			return sum(now, { route: '/healthz' }) > markers && now;
		},
		{ what: 'the marker request counted' },
	);
	return sum(series, filter) - sum(since, filter);
}
