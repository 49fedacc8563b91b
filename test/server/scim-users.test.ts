import { User } from '../../server/src/db';
import type { TestServer } from '../helpers/server';
import { call, feedCaughtUp, startApiServer, type World } from './api-fixtures';
import { expectScimError, PATCH_OP, scim, USER } from './scim-fixtures';

/**
 * /scim/v2/Users against RFC 7644 and the users domain: filters, paging, ETags, bad input, and
 * that SCIM is one more door onto the same users (same records, rules, events, organization).
 */

let server: TestServer;
let world: World;
let key: string;
let globexKey: string;
beforeAll(async () => {
	({ server, world } = await startApiServer());
	key = (await server.createKey('acme', ['read:users', 'write:users'], 'idp')).key;
	globexKey = (await server.createKey('globex', ['read:users', 'write:users'], 'idp')).key;
});
afterAll(() => server.stop());

let n = 0;
const unique = (prefix: string) => `${prefix}-${++n}-${Math.random().toString(36).slice(2, 8)}`;
const create = (body: Record<string, unknown>, k = key) => scim(server, '/Users', { method: 'POST', key: k, body: { schemas: [USER], ...body } });
const list = (query: string, k = key) => scim(server, `/Users?${query}`, { key: k });
const filter = (f: string, k = key) => list(`filter=${encodeURIComponent(f)}`, k);
const ids = (reply: { body: { Resources: Array<{ id: string }> } }) => reply.body.Resources.map((r) => r.id).sort();

async function newUser(extra: Record<string, unknown> = {}) {
	const email = `${unique('p')}@acme.example`;
	const reply = await create({ userName: email, name: { givenName: 'Pat', familyName: 'Doe' }, ...extra });
	expect(reply.status).toBe(201);
	return reply.body as { id: string; userName: string; externalId?: string; meta: { version: string } };
}

describe('filters (RFC 7644 §3.4.2.2) and paging', () => {
	test('userName eq ignores case; externalId eq is exact; emails.value eq; and / or; id and active', async () => {
		const a = await newUser({ externalId: unique('EXT') });
		const b = await newUser({ externalId: unique('ext') });
		expect(ids(await filter(`userName eq "${a.userName.toUpperCase()}"`))).toEqual([a.id]);
		expect(ids(await filter(`USERNAME EQ "${a.userName}"`))).toEqual([a.id]);
		expect(ids(await filter(`externalId eq "${a.externalId!}"`))).toEqual([a.id]);
		expect((await filter(`externalId eq "${a.externalId!.toLowerCase()}"`)).body.totalResults).toBe(0);
		expect(ids(await filter(`emails.value eq "${b.userName}"`))).toEqual([b.id]);
		expect(ids(await filter(`userName eq "${a.userName}" or externalId eq "${b.externalId!}"`))).toEqual([a.id, b.id].sort());
		expect(ids(await filter(`userName eq "${a.userName}" and externalId eq "${a.externalId!}"`))).toEqual([a.id]);
		expect((await filter(`userName eq "${a.userName}" and externalId eq "${b.externalId!}"`)).body.totalResults).toBe(0);
		expect(ids(await filter(`(userName eq "${a.userName}" or userName eq "${b.userName}") and active eq true`))).toEqual([a.id, b.id].sort());
		expect(ids(await filter(`id eq "${b.id}"`))).toEqual([b.id]);
	});

	test('an unreadable or unsupported filter is 400 invalidFilter and names what is supported; never 5xx', async () => {
		for (const f of ['userName eq', 'userName eq "a" and (', 'title eq "x"', 'userName co "a"', 'userName sw "a"', 'not (userName eq "a")', 'userName pr', 'externalId eq 12', 'active eq "yes"', 'name.givenName eq "Pat"', '"', 'userName eq "a" or '.repeat(30) + 'userName eq "b"']) {
			const reply = await filter(f);
			expectScimError(reply, 400, 'invalidFilter');
		}
		expect((await filter('title eq "x"')).body.detail).toContain('userName, emails.value, externalId, id or active');
		expectScimError(await list('filter=a&filter=b'), 400, 'invalidValue');
	});

	test('startIndex and count: 1-based pages in creation order, totalResults, itemsPerPage; out-of-range values read as RFC 7644 §3.4.2.4 says', async () => {
		const all = await list('count=100');
		const total = all.body.totalResults as number;
		expect(total).toBe(await User.count({ where: { organizationId: world.acme.id, scimDeletedAt: null } }));
		expect(all.body.Resources.map((r: { id: string }) => r.id)).toEqual(
			(await User.findAll({ where: { organizationId: world.acme.id, scimDeletedAt: null }, order: [['createdAt', 'ASC'], ['id', 'ASC']], limit: 100 })).map((u) => u.id),
		);
		const page = await list('startIndex=3&count=2');
		expect(page.body).toMatchObject({ totalResults: total, startIndex: 3, itemsPerPage: 2 });
		expect(page.body.Resources.map((r: { id: string }) => r.id)).toEqual(all.body.Resources.slice(2, 4).map((r: { id: string }) => r.id));
		expect((await list('startIndex=0&count=1')).body).toMatchObject({ startIndex: 1, itemsPerPage: 1 });
		expect((await list('count=-5')).body).toMatchObject({ totalResults: total, itemsPerPage: 0, Resources: [] });
		expect((await list('count=1000')).body.itemsPerPage).toBe(Math.min(total, 100));
		expect((await list(`startIndex=${total + 10}`)).body).toMatchObject({ totalResults: total, itemsPerPage: 0, Resources: [] });
		expectScimError(await list('startIndex=abc'), 400, 'invalidValue');
		expectScimError(await list('count=1.5'), 400, 'invalidValue');
	});
});

describe('ETags (RFC 7644 §3.14)', () => {
	test('GET answers ETag = meta.version; If-Match with a stale version is 412 on PUT, PATCH and DELETE, and changes nothing', async () => {
		const user = await newUser();
		const got = await scim(server, `/Users/${user.id}`, { key });
		expect(got.headers.get('etag')).toBe(got.body.meta.version);
		const stale = got.body.meta.version as string;
		const renamed = await scim(server, `/Users/${user.id}`, { method: 'PATCH', key, headers: { 'if-match': stale }, body: { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'name.givenName', value: 'New' }] } });
		expect(renamed.status).toBe(200);
		expect(renamed.body.meta.version).not.toBe(stale);
		expect(renamed.headers.get('etag')).toBe(renamed.body.meta.version);
		const before = await call(server, `/api/v1/users/${user.id}`, { key: world.keys.all });
		expectScimError(await scim(server, `/Users/${user.id}`, { method: 'PATCH', key, headers: { 'if-match': stale }, body: { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'active', value: false }] } }), 412);
		expectScimError(await scim(server, `/Users/${user.id}`, { method: 'PUT', key, headers: { 'if-match': stale }, body: { schemas: [USER], userName: user.userName } }), 412);
		expectScimError(await scim(server, `/Users/${user.id}`, { method: 'DELETE', key, headers: { 'if-match': stale } }), 412);
		expect((await call(server, `/api/v1/users/${user.id}`, { key: world.keys.all })).body).toEqual(before.body);
		expect((await scim(server, `/Users/${user.id}`, { method: 'DELETE', key, headers: { 'if-match': `"x", ${renamed.body.meta.version as string}` } })).status).toBe(204);
	});
});

describe('ETags under concurrency', () => {
	test('10 concurrent PATCHes with the same If-Match: exactly one applies, the others are 412 (no lost update)', async () => {
		const user = await newUser();
		const replies = await Promise.all(
			Array.from({ length: 10 }, (_, i) =>
				scim(server, `/Users/${user.id}`, {
					method: 'PATCH',
					key,
					headers: { 'if-match': user.meta.version },
					body: { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'name.givenName', value: `Writer${i}` }] },
				}),
			),
		);
		const applied = replies.filter((r) => r.status === 200);
		expect(applied).toHaveLength(1);
		for (const r of replies.filter((x) => x.status !== 200)) expectScimError(r, 412);
		expect((await scim(server, `/Users/${user.id}`, { key })).body.name.givenName).toBe(applied[0].body.name.givenName);
	});
});

describe('bad input changes nothing and is a SCIM 400', () => {
	test('POST: no schemas, no userName, a userName that is not an e-mail, wrong types, a name too long', async () => {
		const count = await User.count();
		for (const [body, scimType] of [
			[{ userName: 'a@acme.example' }, 'invalidSyntax'],
			[{ schemas: [USER] }, 'invalidValue'],
			[{ schemas: [USER], userName: 'not-an-email' }, 'invalidValue'],
			[{ schemas: [USER], userName: 42 }, 'invalidValue'],
			[{ schemas: [USER], userName: 'b@acme.example', active: 'perhaps' }, 'invalidValue'],
			[{ schemas: [USER], userName: 'c@acme.example', name: { formatted: 'x'.repeat(201) } }, 'invalidValue'],
			[{ schemas: [USER], userName: 'd@acme.example', externalId: 'tab\there' }, 'invalidValue'],
		] as Array<[Record<string, unknown>, string]>) {
			expectScimError(await scim(server, '/Users', { method: 'POST', key, body }), 400, scimType);
		}
		expect(await User.count()).toBe(count);
	});

	test('PATCH: a bad message, an unknown op, a read-only attribute; a path to an attribute we do not keep is ignored', async () => {
		const user = await newUser();
		const p = (body: unknown) => scim(server, `/Users/${user.id}`, { method: 'PATCH', key, body });
		expectScimError(await p({ schemas: ['urn:x'], Operations: [{ op: 'replace', path: 'active', value: false }] }), 400, 'invalidSyntax');
		expectScimError(await p({ schemas: [PATCH_OP], Operations: [{ op: 'move', path: 'active', value: false }] }), 400, 'invalidSyntax');
		expectScimError(await p({ schemas: [PATCH_OP], Operations: 'replace' }), 400, 'invalidValue');
		expect((await p({ schemas: [PATCH_OP], Operations: [{ op: 'add', path: 'nickName', value: 'Boss' }] })).status).toBe(200);
		expectScimError(await p({ schemas: [PATCH_OP], Operations: [{ op: 'add', path: 'name[', value: 'Boss' }] }), 400, 'invalidPath');
		expectScimError(await p({ schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'id', value: 'usr_x' }] }), 400, 'mutability');
		// userName needs not be an e-mail (SPEC §21), but cannot be blank.
		expectScimError(await p({ schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'userName', value: '   ' }] }), 400, 'invalidValue');
		expect((await scim(server, `/Users/${user.id}`, { key })).body.meta.version).toBe(user.meta.version);
	});
});

describe('one user, whichever door', () => {
	test('created through SCIM: the same record in /api/v1; events user.created, user.updated (previous_attributes), user.deactivated', async () => {
		await feedCaughtUp(server, world.keys.all, world.acme.id);
		const head = (await call(server, '/api/v1/events/head', { key: world.keys.all })).body.after as string;
		const externalId = unique('okta');
		const created = await create({ userName: `${unique('x')}@acme.example`, externalId, name: { formatted: 'Ada King Lovelace' } });
		expect(created.status).toBe(201);
		const id = created.body.id as string;
		const api = await call(server, `/api/v1/users/${id}`, { key: world.keys.all });
		expect(api.body).toEqual({
			id,
			name: 'Ada King Lovelace',
			email: created.body.userName,
			username: created.body.userName,
			role: 'student',
			status: 'active',
			external_id: externalId,
			profile: { title: null, department: null, employee_number: null, manager_id: null },
			created_at: created.body.meta.created,
			updated_at: created.body.meta.lastModified,
			deactivated_at: null,
		});
		// The name reads back as sent (SPEC §21): no parts were sent but formatted.
		expect(created.body.name).toEqual({ formatted: 'Ada King Lovelace' });
		// Found through /api/v1's filter too.
		expect((await call(server, `/api/v1/users?external_id=${externalId}`, { key: world.keys.all })).body.data.map((u: { id: string }) => u.id)).toEqual([id]);

		await scim(server, `/Users/${id}`, { method: 'PATCH', key, body: { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'name.familyName', value: 'Byron' }] } });
		expect((await scim(server, `/Users/${id}`, { method: 'DELETE', key })).status).toBe(204);
		await feedCaughtUp(server, world.keys.all, world.acme.id);
		const events = (await call(server, `/api/v1/events?after=${head}&limit=100`, { key: world.keys.all })).body.data as Array<{ type: string; data: { object: { id: string; status: string }; previous_attributes?: unknown } }>;
		const mine = events.filter((e) => e.data.object.id === id);
		expect(mine.map((e) => e.type)).toEqual(['user.created', 'user.updated', 'user.deactivated']);
		expect(mine[1].data.previous_attributes).toEqual({ name: 'Ada King Lovelace' });
		expect(mine[2].data.object.status).toBe('deactivated');
	});

	test('DELETE (SPEC §21): the SCIM resource is gone, the LMS user stays deactivated; a POST of the same userName brings the same user back, active', async () => {
		const user = await newUser({ externalId: unique('del') });
		const at = `/Users/${user.id}`;
		expect((await scim(server, at, { method: 'DELETE', key })).status).toBe(204);
		expectScimError(await scim(server, at, { key }), 404);
		expectScimError(await scim(server, at, { method: 'PUT', key, body: { schemas: [USER], userName: user.userName, active: true } }), 404);
		expectScimError(await scim(server, at, { method: 'PATCH', key, body: { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'active', value: true }] } }), 404);
		expectScimError(await scim(server, at, { method: 'DELETE', key }), 404);
		expect((await filter(`userName eq "${user.userName}"`)).body).toMatchObject({ totalResults: 0, Resources: [] });
		expect((await list('count=100')).body.totalResults).toBe(await User.count({ where: { organizationId: world.acme.id, scimDeletedAt: null } }));
		expect((await call(server, `/api/v1/users/${user.id}`, { key: world.keys.all })).body).toMatchObject({ id: user.id, status: 'deactivated' });

		const back = await create({ userName: user.userName.toUpperCase(), name: { givenName: 'Pat', familyName: 'Back' } });
		expect(back.status).toBe(201);
		expect(back.body).toMatchObject({ id: user.id, active: true, name: { familyName: 'Back' } });
		expect(back.body.externalId).toBeUndefined();
		expect(ids(await filter(`userName eq "${user.userName}"`))).toEqual([user.id]);
		expect((await scim(server, at, { key })).status).toBe(200);
		expect((await call(server, `/api/v1/users/${user.id}`, { key: world.keys.all })).body).toMatchObject({ status: 'active', deactivated_at: null });
		// Now it is there, a second POST is the usual 409.
		expectScimError(await create({ userName: user.userName }), 409, 'uniqueness');
	});

	test('a user deleted through SCIM and reactivated through /api/v1 is a SCIM resource again', async () => {
		const user = await newUser();
		expect((await scim(server, `/Users/${user.id}`, { method: 'DELETE', key })).status).toBe(204);
		expect((await call(server, `/api/v1/users/${user.id}`, { method: 'PATCH', key: world.keys.all, body: { status: 'active' } })).status).toBe(200);
		expect((await scim(server, `/Users/${user.id}`, { key })).body).toMatchObject({ id: user.id, active: true });
		expect(ids(await filter(`userName eq "${user.userName}"`))).toEqual([user.id]);
	});

	test('created through /api/v1: SCIM finds it by userName and changes it; the rules of the API hold (admins are protected)', async () => {
		const email = `${unique('api')}@acme.example`;
		const made = await call(server, '/api/v1/users', { method: 'POST', key: world.keys.all, body: { name: 'Grace Hopper', email } });
		const found = await filter(`userName eq "${email}"`);
		expect(found.body.Resources).toEqual([expect.objectContaining({ id: made.body.id, userName: email, name: { formatted: 'Grace Hopper', givenName: 'Grace', familyName: 'Hopper' } })]);
		const put = await scim(server, `/Users/${made.body.id as string}`, { method: 'PUT', key, body: { schemas: [USER], userName: email, name: { givenName: 'Grace', familyName: 'Murray' }, active: true } });
		expect(put.status).toBe(200);
		expect((await call(server, `/api/v1/users/${made.body.id as string}`, { key: world.keys.all })).body.name).toBe('Grace Murray');
		// Another user's e-mail is 409 uniqueness, naming who holds it.
		const taken = await scim(server, `/Users/${made.body.id as string}`, { method: 'PATCH', key, body: { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'userName', value: world.users.alice.email.toUpperCase() }] } });
		expectScimError(taken, 409, 'uniqueness');
		expect(taken.body.detail).toContain(world.users.alice.id);
		const admin = await scim(server, `/Users/${world.users.admin.id}`, { method: 'PATCH', key, body: { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'active', value: false }] } });
		expectScimError(admin, 403);
		expectScimError(await scim(server, `/Users/${world.users.superAdmin.id}`, { method: 'DELETE', key }), 403);
	});

	test("another organization's key never sees or changes acme's users", async () => {
		const alice = world.users.alice;
		expect((await filter(`userName eq "${alice.email}"`, globexKey)).body.totalResults).toBe(0);
		expect((await list('count=100', globexKey)).body.Resources.map((r: { id: string }) => r.id)).not.toContain(alice.id);
		expectScimError(await scim(server, `/Users/${alice.id}`, { key: globexKey }), 404);
		expectScimError(await scim(server, `/Users/${alice.id}`, { method: 'PATCH', key: globexKey, body: { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'active', value: false }] } }), 404);
		expectScimError(await scim(server, `/Users/${alice.id}`, { method: 'DELETE', key: globexKey }), 404);
		expect((await call(server, `/api/v1/users/${alice.id}`, { key: world.keys.all })).body.status).toBe('active');
		// The same e-mail may exist in another organization: a different user there.
		const there = await create({ userName: alice.email }, globexKey);
		expect(there.status).toBe(201);
		expect(there.body.id).not.toBe(alice.id);
	});

	test('20 concurrent identical creates: exactly one 201, the others 409 uniqueness, one user', async () => {
		const userName = `${unique('racer')}@acme.example`;
		const body = { userName, externalId: unique('race'), name: { givenName: 'Race', familyName: 'Car' } };
		const replies = await Promise.all(Array.from({ length: 20 }, () => create(body)));
		expect(replies.filter((r) => r.status === 201)).toHaveLength(1);
		for (const r of replies.filter((x) => x.status !== 201)) expectScimError(r, 409, 'uniqueness');
		expect(await User.count({ where: { organizationId: world.acme.id, emailLower: userName.toLowerCase() } })).toBe(1);
	});
});
