import { loadConfig } from '../../server/src/config';
import { database as processDatabase } from '../../server/src/db';
import { createLogger } from '../../server/src/http/logging';
import { startServer, type RunningServer } from '../../server/src/server';
import { createTestDatabase, type TestDatabase } from '../helpers/database';
import { waitUntil } from '../helpers/wait';
import { buildWorld, call, type World } from './api-fixtures';

let database: TestDatabase;
let server: RunningServer;
let world: World;

beforeAll(async () => {
	database = await createTestDatabase();
	const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', DATABASE_URL: database.databaseUrl, LOG_LEVEL: 'silent' });
	server = await startServer({ config, logger: createLogger(config) });
	world = await buildWorld();
});
afterAll(async () => {
	await server.close();
	await database.remove();
});

test('listens on an ephemeral port and reports its origin', () => {
	expect(server.port).toBeGreaterThan(0);
	expect(server.url).toBe(`http://127.0.0.1:${server.port}`);
});

test('close() lets an in-flight request finish, then refuses new connections', async () => {
	let release!: () => void;
	const gate = new Promise<void>((resolve) => (release = resolve));
	const db = processDatabase();
	const realRead = db.read.bind(db);
	// The courses page waits at the gate; everything else (the key lookup) goes through.
	const spy = jest.spyOn(db, 'read').mockImplementation(async <R extends object>(sql: string, params?: readonly unknown[]) => {
		if (sql.includes('FROM courses')) await gate;
		return realRead<R>(sql, params);
	});
	const base = { baseUrl: server.url };
	const inFlight = call(base, '/api/v1/courses', { key: world.keys.all });
	await waitUntil(() => spy.mock.calls.some(([sql]) => String(sql).includes('FROM courses')), { what: 'the request at the gate' });

	let closed = false;
	const closing = server.close().then(() => (closed = true));
	// Closing has begun once new connections are refused; the request at the gate holds it open.
	await waitUntil(() => fetch(`${server.url}/healthz`).then(() => false, () => true), { what: 'new connections refused' });
	expect(closed).toBe(false);

	release();
	const reply = await inFlight;
	expect(reply.status).toBe(200);
	expect(reply.body.data).toHaveLength(3);
	await closing;
	spy.mockRestore();
	await expect(fetch(`${server.url}/healthz`)).rejects.toThrow();
});
