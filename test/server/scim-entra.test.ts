import type { TestServer } from '../helpers/server';
import { call, feedCaughtUp, startApiServer, type World } from './api-fixtures';
import { expectScimError, expectUserResource, LIST, PATCH_OP, scim, USER } from './scim-fixtures';

/**
 * Microsoft Entra ID's documented provisioning requests, replayed: "Tutorial: Develop and plan
 * provisioning for a SCIM endpoint" (learn.microsoft.com, use-scim-to-provision-users-and-groups:
 * the User operations) and "Known issues and resolutions with SCIM 2.0 protocol compliance"
 * (application-provisioning-config-problem-scim-compatibility: the requests Entra sends without
 * and with the aadOptscim062020 flag: "Replace"/"Add", "False" strings, path-less replace with
 * dotted keys). Entra's sample userName is a placeholder ("Test_User_<guid>") and its work e-mail
 * another address: both are kept, apart (SPEC §21).
 */

let server: TestServer;
let world: World;
let auth: string;
beforeAll(async () => {
	({ server, world } = await startApiServer());
	auth = (await server.createKey('acme', ['read:users', 'write:users'], 'entra')).key;
});
afterAll(() => server.stop());

const upn = `Test_User_00aa00aa-bb11-cc22-dd33-${Math.random().toString(16).slice(2, 14)}@testuser.com`;
const placeholder = `Test_User_${Math.random().toString(16).slice(2, 10)}-bb11-cc22-dd33-44ee44ee44ee`;
const externalId = '0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef';
const patch = (id: string, Operations: unknown[], headers: Record<string, string> = {}) =>
	scim(server, `/Users/${id}`, { method: 'PATCH', key: auth, headers, body: { schemas: [PATCH_OP], Operations } });
const apiUser = async (id: string) => (await call(server, `/api/v1/users/${id}`, { key: world.keys.all })).body;

/** The documented Create User body, with `userName` and the work e-mail given. */
const createBody = (userName: string, email: string) => ({
	schemas: [USER, 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User'],
	externalId,
	userName,
	active: true,
	emails: [{ primary: true, type: 'work', value: email }],
	meta: { resourceType: 'User' },
	name: { formatted: 'givenName familyName', familyName: 'familyName', givenName: 'givenName' },
	roles: [],
});

let id: string;

test('Get User by query before the create: zero results, as documented', async () => {
	const reply = await scim(server, `/Users?filter=${encodeURIComponent(`userName eq "${upn}"`)}`, { key: auth });
	expect(reply.status).toBe(200);
	expect(reply.body).toEqual({ schemas: [LIST], totalResults: 0, Resources: [], startIndex: 1, itemsPerPage: 0 });
	const nobody = await scim(server, `/Users?filter=${encodeURIComponent('userName eq "non-existent user"')}`, { key: auth });
	expect(nobody.body.totalResults).toBe(0);
});

test("Create User: Entra's placeholder userName is kept apart from the work e-mail; a user without any e-mail is refused", async () => {
	const noEmail = await scim(server, '/Users', { method: 'POST', key: auth, body: createBody(placeholder, placeholder) });
	expectScimError(noEmail, 400, 'invalidValue');
	expect(noEmail.body.detail).toContain('e-mail');

	const reply = await scim(server, '/Users', { method: 'POST', key: auth, body: createBody(placeholder, upn) });
	expect(reply.status).toBe(201);
	expectUserResource(reply.body, server.baseUrl);
	expect(reply.body).toMatchObject({
		schemas: [USER],
		externalId,
		userName: placeholder,
		name: { formatted: 'givenName familyName', familyName: 'familyName', givenName: 'givenName' },
		active: true,
		emails: [{ value: upn, type: 'work', primary: true }],
	});
	id = reply.body.id;
	expect(reply.headers.get('location')).toBe(`${server.baseUrl}/scim/v2/Users/${id}`);
	// The same user by the other door.
	expect(await apiUser(id)).toMatchObject({ id, email: upn, username: placeholder, name: 'givenName familyName', external_id: externalId, role: 'student', status: 'active' });
});

test('Get User, and Get User by query: found; a wrong id is a 404 SCIM error', async () => {
	const one = await scim(server, `/Users/${id}`, { key: auth });
	expect(one.status).toBe(200);
	expect(one.body.id).toBe(id);
	expectScimError(await scim(server, '/Users/5171a35d82074e068ce2', { key: auth }), 404);
	const found = await scim(server, `/Users?filter=${encodeURIComponent(`userName eq "${placeholder.toLowerCase()}"`)}`, { key: auth });
	expect(found.body).toMatchObject({ schemas: [LIST], totalResults: 1, startIndex: 1, itemsPerPage: 1 });
	expect(found.body.Resources[0]).toEqual(one.body);
	// Entra may also match on the work e-mail, or on its externalId.
	const byEmail = await scim(server, `/Users?filter=${encodeURIComponent(`emails[type eq "work" and value eq "${upn.toUpperCase()}"]`)}`, { key: auth });
	expect(byEmail.body.Resources.map((r: { id: string }) => r.id)).toEqual([id]);
	const byExternal = await scim(server, `/Users?filter=${encodeURIComponent(`externalId eq "${externalId}"`)}`, { key: auth });
	expect(byExternal.body.Resources.map((r: { id: string }) => r.id)).toEqual([id]);
});

test('Update User [Multi-valued properties]: "Replace" emails[type eq "work"].value and name.familyName', async () => {
	const email = `updatedEmail-${id}@microsoft.example`;
	const reply = await patch(id, [
		{ op: 'Replace', path: 'emails[type eq "work"].value', value: email },
		{ op: 'Replace', path: 'name.familyName', value: 'updatedFamilyName' },
	]);
	expect(reply.status).toBe(200);
	expect(reply.body).toMatchObject({
		id,
		externalId,
		// Each part as written (SPEC §21): formatted was not sent, so it stays.
		name: { formatted: 'givenName familyName', familyName: 'updatedFamilyName', givenName: 'givenName' },
		active: true,
		emails: [{ value: email, type: 'work', primary: true }],
		// The work e-mail moves; userName does not (SPEC §21).
		userName: placeholder,
	});
	expect(await apiUser(id)).toMatchObject({ email, username: placeholder, name: 'givenName updatedFamilyName' });
});

test('Update User [Single-valued properties]: "Replace" userName', async () => {
	const reply = await patch(id, [{ op: 'Replace', path: 'userName', value: upn }]);
	expect(reply.status).toBe(200);
	expect(reply.body).toMatchObject({ userName: upn, emails: [{ value: `updatedEmail-${id}@microsoft.example`, type: 'work', primary: true }] });
});

test('Disable without the compliance flag: "Replace" active with the string "False"; "True" reactivates', async () => {
	const off = await patch(id, [{ op: 'Replace', path: 'active', value: 'False' }]);
	expect(off.status).toBe(200);
	expect(off.body.active).toBe(false);
	expect((await apiUser(id)).status).toBe('deactivated');
	const on = await patch(id, [{ op: 'Replace', path: 'active', value: 'True' }]);
	expect(on.body.active).toBe(true);
	expect((await apiUser(id)).status).toBe('active');
	// Anything else is not a boolean.
	expectScimError(await patch(id, [{ op: 'Replace', path: 'active', value: 'maybe' }]), 400, 'invalidValue');
});

test('Replace multiple attributes without the flag: an attribute the LMS does not keep is ignored, the others land (SPEC §21)', async () => {
	const operations = [
		{ op: 'Replace', path: 'displayName', value: 'Pvlo' },
		{ op: 'Replace', path: 'emails[type eq "work"].value', value: `TestBcwqnm-${id}@test.microsoft.example` },
		{ op: 'Replace', path: 'name.givenName', value: 'Gtfd' },
		{ op: 'Replace', path: 'name.familyName', value: 'Pkqf' },
		{ op: 'Replace', path: 'externalId', value: 'Eqpj' },
		{ op: 'Replace', path: 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:employeeNumber', value: 'Eqpj' },
	];
	const reply = await patch(id, operations);
	expect(reply.status).toBe(200);
	// Each part as written: name.formatted was not sent, so it stays; the LMS name follows the parts that changed.
	expect(reply.body).toMatchObject({
		externalId: 'Eqpj',
		name: { formatted: 'givenName familyName', givenName: 'Gtfd', familyName: 'Pkqf' },
		displayName: 'Pvlo',
		userName: upn,
		emails: [{ value: `TestBcwqnm-${id}@test.microsoft.example`, type: 'work', primary: true }],
		'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User': { employeeNumber: 'Eqpj' },
	});
	expect(await apiUser(id)).toMatchObject({ name: 'Gtfd Pkqf', profile: { employee_number: 'Eqpj', title: null, department: null, manager_id: null } });
});

test('Replace multiple attributes with the flag: a path-less replace whose value has dotted keys', async () => {
	const reply = await patch(id, [
		{ op: 'replace', path: 'emails[type eq "work"].value', value: upn },
		{ op: 'replace', value: { displayName: 'Bjfe', 'name.givenName': 'Kkom', 'name.familyName': 'Unua' } },
	]);
	expect(reply.status).toBe(200);
	expect(reply.body).toMatchObject({ userName: upn, emails: [{ value: upn }], name: { givenName: 'Kkom', familyName: 'Unua' }, displayName: 'Bjfe' });
	expect(await apiUser(id)).toMatchObject({ name: 'Kkom Unua', email: upn });
});

test('"Add" of a single-value attribute the LMS does not keep (nickName) is accepted and ignored; "Add" of one it keeps works', async () => {
	const before = await scim(server, `/Users/${id}`, { key: auth });
	const ignored = await patch(id, [{ op: 'Add', path: 'nickName', value: 'Babs' }]);
	expect(ignored.status).toBe(200);
	expect(ignored.body).toEqual(before.body);
	const reply = await patch(id, [{ op: 'Add', path: 'externalId', value: externalId }]);
	expect(reply.body.externalId).toBe(externalId);
});

test('an empty Operations list changes nothing and emits nothing: 200 with the user', async () => {
	await feedCaughtUp(server, world.keys.all, world.acme.id);
	const head = (await call(server, '/api/v1/events/head', { key: world.keys.all })).body.after;
	const before = await scim(server, `/Users/${id}`, { key: auth });
	const reply = await patch(id, []);
	expect(reply.status).toBe(200);
	expect(reply.body).toEqual(before.body);
	const events = await call(server, `/api/v1/events?after=${head}`, { key: world.keys.all });
	expect(events.body.data).toEqual([]);
	// The message must still be a PatchOp.
	expectScimError(await scim(server, `/Users/${id}`, { method: 'PATCH', key: auth, body: { Operations: [] } }), 400, 'invalidSyntax');
});

test('Disable User (documented, boolean false), then Delete User: 204, the resource is gone, the record stays deactivated', async () => {
	const off = await scim(server, `/Users/${id}`, { method: 'PATCH', key: auth, body: { Operations: [{ op: 'Replace', path: 'active', value: false }], schemas: [PATCH_OP] } });
	expect(off.status).toBe(200);
	expect(off.body.active).toBe(false);
	await patch(id, [{ op: 'replace', path: 'active', value: true }]);
	const del = await scim(server, `/Users/${id}`, { method: 'DELETE', key: auth });
	expect(del.status).toBe(204);
	expect(del.text).toBe('');
	expectScimError(await scim(server, `/Users/${id}`, { key: auth }), 404);
	expect(await apiUser(id)).toMatchObject({ id, status: 'deactivated', deactivated_at: expect.stringMatching(/Z$/) });
	// A repeat finds nothing to delete (SPEC §21).
	expectScimError(await scim(server, `/Users/${id}`, { method: 'DELETE', key: auth }), 404);
});
