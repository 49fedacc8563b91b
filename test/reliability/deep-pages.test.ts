/**
 * Lists read near their start in one query and deeper in with a deferred join (ids first, then
 * rows). Walking a list of a few thousand records across that boundary, at several page sizes,
 * must give every record exactly once, in (created_at, id) order, whatever way each page was read.
 */
import { Organization, User } from '../../server/src/db';
import { startTestServer, type TestServer } from '../helpers/server';
import { parseJson, send } from './support';

const USERS = 2_500;

let server: TestServer;
let key: string;
let expected: string[];

beforeAll(async () => {
	server = await startTestServer({ seed: false, env: { RATE_LIMIT_PER_MINUTE: '1000000000' } });
	const org = await Organization.create({ name: 'Deep', slug: 'deep', plan: 'enterprise' });
	const base = Date.UTC(2024, 0, 1);
	// Groups of five share a created_at, so the id decides the order within each group.
	const users = Array.from({ length: USERS }, (_, i) => ({
		organizationId: org.id,
		name: `Deep ${i}`,
		email: `deep-${i}@deep.example`,
		// bulkCreate skips the model's hooks, which derive this one.
		emailLower: `deep-${i}@deep.example`,
		role: 'student' as const,
		passwordHash: null,
		createdAt: new Date(base + Math.floor(i / 5) * 1000),
	}));
	for (let i = 0; i < USERS; i += 500) await User.bulkCreate(users.slice(i, i + 500));
	key = (await server.createKey('deep', ['read:users'], 'deep pages')).key;
	const rows = await User.findAll({ where: { organizationId: org.id }, order: [['createdAt', 'ASC'], ['id', 'ASC']], attributes: ['id'] });
	expected = rows.map((r) => r.id);
}, 120_000);

afterAll(() => server?.stop());

test.each([100, 37, 1])('per_page=%i: every user once, in order, across the one-query / deferred-join boundary', async (perPage) => {
	const pages = Math.ceil(USERS / perPage);
	// per_page=1 would be 2,500 requests: sample the pages around the boundary and the end.
	const wanted = perPage === 1 ? [1, 2, 999, 1000, 1001, 1002, 2499, 2500] : Array.from({ length: pages }, (_, i) => i + 1);
	for (const page of wanted) {
		const reply = await send(server.baseUrl, { method: 'GET', path: `/api/v1/users?per_page=${perPage}&page=${page}`, headers: { authorization: `Bearer ${key}` } });
		expect(reply.status).toBe(200);
		const body = parseJson(reply.text) as { data: Array<{ id: string }>; pagination: { total: number } };
		expect(body.pagination.total).toBe(USERS);
		expect({ page, ids: body.data.map((u) => u.id) }).toEqual({ page, ids: expected.slice((page - 1) * perPage, page * perPage) });
	}
});

test('a page past the end is empty with the true total, deep or not', async () => {
	for (const page of [26, 2_000_000]) {
		const reply = await send(server.baseUrl, { method: 'GET', path: `/api/v1/users?per_page=100&page=${page}`, headers: { authorization: `Bearer ${key}` } });
		expect(parseJson(reply.text)).toEqual({ data: [], pagination: { page, per_page: 100, total: USERS } });
	}
});
