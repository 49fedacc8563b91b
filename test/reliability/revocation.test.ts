/**
 * Revocation under load: 20 clients hammer the API with one key while an operator revokes it
 * with `lms-server keys revoke`. No request sent after the command returned may succeed; the
 * send time of every request is recorded to check exactly that.
 */
import { Agent } from 'node:http';

import { runCli } from '../helpers/cli';
import { startTestServer, type TestServer } from '../helpers/server';
import { parseJson, send, type RawReply } from './support';

const CLIENTS = 20;
/** How long the clients keep going before the revoke, and after it returned. */
const LOAD_BEFORE_MS = 1_000;
const LOAD_AFTER_MS = 1_500;

let server: TestServer;
const agent = new Agent({ keepAlive: true, maxSockets: CLIENTS });

beforeAll(async () => {
	server = await startTestServer({ env: { RATE_LIMIT_PER_MINUTE: '1000000000' } });
}, 120_000);

afterAll(async () => {
	agent.destroy();
	await server?.stop();
});

test(`${CLIENTS} clients on one key; after \`keys revoke\` returns, not one more 2xx`, async () => {
	const { id, key } = await server.createKey('acme', ['read:users', 'read:courses', 'read:enrollments'], 'revoked under load');
	const paths = ['/api/v1/users?per_page=10', '/api/v1/courses', '/api/v1/enrollments?status=active&per_page=5'];

	const replies: RawReply[] = [];
	let stop = false;
	const client = async (n: number) => {
		for (let i = n; !stop; i++) {
			replies.push(await send(server.baseUrl, { method: 'GET', path: paths[i % paths.length], headers: { authorization: `Bearer ${key}` } }, agent));
		}
	};
	const clients = Array.from({ length: CLIENTS }, (_, n) => client(n));

	await new Promise((r) => setTimeout(r, LOAD_BEFORE_MS));
	const revoke = await runCli(['keys', 'revoke', id], { env: { DATABASE_URL: server.databaseUrl } });
	const revokedAt = Date.now();
	expect(revoke).toMatchObject({ code: 0 });
	await new Promise((r) => setTimeout(r, LOAD_AFTER_MS));
	stop = true;
	await Promise.all(clients);

	const before = replies.filter((r) => r.sentAt < revokedAt);
	const after = replies.filter((r) => r.sentAt > revokedAt);
	console.log(`revocation: ${before.length} requests before the revoke returned (${before.filter((r) => r.status === 200).length} × 200), ${after.length} after`);

	// The load was real on both sides of the revoke.
	expect(before.filter((r) => r.status === 200).length).toBeGreaterThan(CLIENTS);
	expect(after.length).toBeGreaterThan(CLIENTS);
	const succeededAfter = after.filter((r) => r.status >= 200 && r.status < 300);
	expect(succeededAfter).toHaveLength(0);
	expect(new Set(after.map((r) => `${r.status} ${(parseJson(r.text) as { code?: string }).code}`))).toEqual(new Set(['401 api_key_revoked']));
	// Nothing else went wrong while it happened.
	expect(replies.filter((r) => r.status !== 200 && r.status !== 401)).toEqual([]);
}, 60_000);
