import type { TestServer } from '../helpers/server';
import { startApiServer } from './api-fixtures';
import { expectScimError, PATCH_OP, scim, USER } from './scim-fixtures';

/**
 * SPEC §21: attribute names and PATCH paths in any case; attributes the LMS does not keep are
 * accepted and ignored by POST, PUT and PATCH alike (a PATCH never fails whole because of one);
 * If-None-Match with the current version is 304; /Me is 501.
 */

const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
let server: TestServer;
let key: string;
beforeAll(async () => {
	({ server } = await startApiServer());
	key = (await server.createKey('acme', ['read:users', 'write:users'], 'idp')).key;
});
afterAll(() => server.stop());

let n = 0;
const email = () => `rfc-${++n}-${Math.random().toString(36).slice(2, 8)}@acme.example`;
const patch = (id: string, Operations: unknown[]) => scim(server, `/Users/${id}`, { method: 'PATCH', key, body: { schemas: [PATCH_OP], Operations } });
/** What Entra's default mappings and Okta send beside what the LMS keeps. */
const unkept = {
	password: 'Secret-1234',
	phoneNumbers: [{ value: '+1 555 0100', type: 'work' }],
	addresses: [{ type: 'work', streetAddress: '1 Main St', locality: 'Springfield', country: 'US' }],
	preferredLanguage: 'en-US',
	nickName: 'Babs',
	[`${ENTERPRISE}`]: { costCenter: 'CC-1', organization: 'Acme' },
};

async function created(): Promise<{ id: string; userName: string; meta: { version: string } }> {
	const reply = await scim(server, '/Users', { method: 'POST', key, body: { schemas: [USER, ENTERPRISE], userName: email(), name: { givenName: 'Pat', familyName: 'Doe' }, ...unkept } });
	expect(reply.status).toBe(201);
	return reply.body;
}

describe('tolerance: what the LMS does not keep is accepted and ignored alike', () => {
	test('POST and PUT with password, phone numbers, addresses, preferredLanguage and extension attributes: 201 / 200, none of them echoed', async () => {
		const user = await created();
		const read = await scim(server, `/Users/${user.id}`, { key });
		for (const attribute of ['password', 'phoneNumbers', 'addresses', 'preferredLanguage', 'nickName']) expect(read.body).not.toHaveProperty(attribute);
		const put = await scim(server, `/Users/${user.id}`, { method: 'PUT', key, body: { schemas: [USER], userName: user.userName, displayName: 'Pat Doe', ...unkept } });
		expect(put.status).toBe(200);
		expect(put.body).not.toHaveProperty('password');
	});

	test("a PATCH with Entra's default mappings applies what is kept and ignores the rest, whole", async () => {
		const user = await created();
		const reply = await patch(user.id, [
			{ op: 'Replace', path: 'phoneNumbers[type eq "work"].value', value: '+1 555 0101' },
			{ op: 'Replace', path: 'addresses[type eq "work"].streetAddress', value: '2 Main St' },
			{ op: 'Replace', path: 'preferredLanguage', value: 'de-DE' },
			{ op: 'Replace', path: `${ENTERPRISE}:costCenter`, value: 'CC-2' },
			{ op: 'Add', path: 'password', value: 'Other-5678' },
			{ op: 'Replace', path: 'name.givenName', value: 'Patricia' },
			{ op: 'Replace', value: { nickName: 'P', 'name.familyName': 'Dane', [`${ENTERPRISE}:costCenter`]: 'CC-3' } },
		]);
		expect(reply.status).toBe(200);
		expect(reply.body.name).toMatchObject({ givenName: 'Patricia', familyName: 'Dane' });
		expect(reply.body).not.toHaveProperty('preferredLanguage');
		// Only ignored operations: 200, nothing changes (same version).
		const ignored = await patch(user.id, [{ op: 'replace', path: 'preferredLanguage', value: 'fr-FR' }]);
		expect(ignored.status).toBe(200);
		expect(ignored.body.meta.version).toBe(reply.body.meta.version);
	});
});

describe('RFC behaviour', () => {
	test('PATCH paths and path-less keys in any case, also behind the core schema URN', async () => {
		const user = await created();
		const reply = await patch(user.id, [
			{ op: 'replace', path: 'Name.GivenName', value: 'Quinn' },
			{ op: 'replace', path: `${USER}:NAME.FAMILYNAME`, value: 'Roe' },
			{ op: 'replace', value: { ACTIVE: 'False' } },
		]);
		expect(reply.status).toBe(200);
		expect(reply.body).toMatchObject({ name: { givenName: 'Quinn', familyName: 'Roe' }, active: false });
		const again = await patch(user.id, [{ op: 'replace', value: { [USER]: { Active: true } } }]);
		expect(again.body.active).toBe(true);
	});

	test('attribute names in a POST body in any case', async () => {
		const userName = email();
		const reply = await scim(server, '/Users', { method: 'POST', key, body: { schemas: [USER], UserName: userName, ExternalId: `rfc-${n}`, Name: { GivenName: 'Ada', FamilyName: 'Byron' } } });
		expect(reply.status).toBe(201);
		expect(reply.body).toMatchObject({ userName, externalId: `rfc-${n}`, name: { givenName: 'Ada', familyName: 'Byron' } });
	});

	test('If-None-Match with the current version is 304 without a body; with an older one, 200', async () => {
		const user = await created();
		const same = await scim(server, `/Users/${user.id}`, { key, headers: { 'if-none-match': user.meta.version } });
		expect(same.status).toBe(304);
		expect(same.text).toBe('');
		expect(same.headers.get('etag')).toBe(user.meta.version);
		expect((await scim(server, `/Users/${user.id}`, { key, headers: { 'if-none-match': '*' } })).status).toBe(304);
		await patch(user.id, [{ op: 'replace', path: 'displayName', value: 'Changed Name' }]);
		const changed = await scim(server, `/Users/${user.id}`, { key, headers: { 'if-none-match': user.meta.version } });
		expect(changed.status).toBe(200);
		expect(changed.body.meta.version).not.toBe(user.meta.version);
	});

	test('/Me answers 501 in SCIM error schema, for every method', async () => {
		expectScimError(await scim(server, '/Me', { key }), 501);
		expectScimError(await scim(server, '/Me', { method: 'PATCH', key, body: { schemas: [PATCH_OP], Operations: [] } }), 501);
	});
});

describe('attributes= and excludedAttributes= (RFC 7644 §3.4.2.5)', () => {
	test('on GET one, list and a PATCH answer: only what is asked (id and schemas always), or all but what is excluded; names in any case', async () => {
		const user = await created();
		const one = await scim(server, `/Users/${user.id}?attributes=UserName,name.givenName`, { key });
		expect(one.body).toEqual({ schemas: [USER], id: user.id, userName: user.userName, name: { givenName: 'Pat' } });
		const list = await scim(server, `/Users?filter=${encodeURIComponent(`userName eq "${user.userName}"`)}&excludedAttributes=emails,meta,NAME.formatted`, { key });
		expect(list.body.Resources).toEqual([{ schemas: [USER], id: user.id, userName: user.userName, name: { givenName: 'Pat', familyName: 'Doe' }, active: true }]);
		const patched = await scim(server, `/Users/${user.id}?attributes=active`, { method: 'PATCH', key, body: { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'active', value: false }] } });
		expect(patched.body).toEqual({ schemas: [USER], id: user.id, active: false });
		expect((await scim(server, `/Users/${user.id}?excludedAttributes=id`, { key })).body.id).toBe(user.id);
	});

	test('a repeated or oversized parameter is 400 before anything changes', async () => {
		const user = await created();
		const bad = await scim(server, `/Users/${user.id}?attributes=a&attributes=b`, { method: 'PATCH', key, body: { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'active', value: false }] } });
		expectScimError(bad, 400, 'invalidValue');
		expect((await scim(server, `/Users/${user.id}`, { key })).body.active).toBe(true);
		expectScimError(await scim(server, `/Users?attributes=${'a'.repeat(1001)}`, { key }), 400, 'invalidValue');
	});
});
