import { createKey } from '../../server/src/api-keys/lifecycle';
import { Organization } from '../../server/src/db';
import type { TestServer } from '../helpers/server';
import { call, startApiServer } from './api-fixtures';
import { expectScimError, expectUserResource, LIST, PATCH_OP, scim, USER } from './scim-fixtures';

/**
 * Okta's public "Okta SCIM 2.0 SPEC Test" (the Runscope suite Okta's provisioning guide gives ISVs,
 * developer.okta.com → "Test your SCIM API"), replayed request for request with Okta's headers and
 * assertions, then the writes of Okta's CRUD test: PUT replace and PATCH active false.
 * Each answer is also checked against RFC 7643/7644 (media type, schemas, meta, Location).
 */

let server: TestServer;
let auth: string;
const OKTA_GET = { 'Accept-Charset': 'utf-8', 'Content-Type': 'application/scim+json; charset=utf-8', Accept: 'application/scim+json', 'User-Agent': 'OKTA SCIM Integration' };
const OKTA_POST = { 'Content-Type': 'application/json', Accept: 'application/scim+json; charset=utf-8' };
const suffix = Math.random().toString(36).slice(2, 8);
const vars = {
	InvalidUserEmail: `abcdefgh@${suffix}.example`,
	UserIdThatDoesNotExist: '010101001010101010101010101',
	randomEmail: `Runscope${suffix}Email@atko.example`,
	randomUsername: `Runscope${suffix}Username@atko.example`,
	randomGivenName: `Given${suffix}`,
	randomFamilyName: `Family${suffix}`,
};
const randomUsernameCaps = vars.randomUsername.toUpperCase();

beforeAll(async () => {
	({ server } = await startApiServer());
	// A tenant of its own whose first user (the one "Test Users endpoint" reads) came through /api/v1.
	const org = await Organization.create({ name: 'Okta tenant', slug: 'okta-tenant', plan: 'enterprise' });
	auth = `Bearer ${(await createKey({ organizationId: org.id, label: 'okta', scopes: ['read:users', 'write:users'], actor: { kind: 'cli' } })).secret}`;
	const first = await call(server, '/api/v1/users', { method: 'POST', headers: { authorization: auth }, body: { name: 'Jane Doe', email: 'jane.doe@okta-tenant.example' } });
	expect(first.status).toBe(201);
});
afterAll(() => server.stop());

const get = (path: string, authorization = auth) => scim(server, path, { headers: { ...OKTA_GET, Authorization: authorization } });
const encode = (filter: string) => encodeURIComponent(filter);

test("Okta SCIM 2.0 SPEC Test, step by step", async () => {
	// Required Test: Test Users endpoint.
	const users = await get('/Users?count=1&startIndex=1');
	expect(users.status).toBe(200);
	expect(users.headers.get('content-type')).toBe('application/scim+json; charset=utf-8');
	expect(users.body.schemas).toContain(LIST);
	for (const n of ['itemsPerPage', 'startIndex', 'totalResults']) expect(typeof users.body[n]).toBe('number');
	expect(users.body.Resources).toHaveLength(1);
	const [first] = users.body.Resources;
	for (const value of [first.id, first.name.familyName, first.name.givenName, first.userName, first.emails[0].value]) expect(value).toBeTruthy();
	expect(first.active).toBe(true);
	expectUserResource(first, server.baseUrl);
	const ISVUserid = first.id as string;

	// Required Test: Get Users/{{id}}.
	const one = await get(`/Users/${ISVUserid}`);
	expect(one.status).toBe(200);
	expect(one.body).toMatchObject({ id: ISVUserid, name: { familyName: 'Doe', givenName: 'Jane' }, userName: 'jane.doe@okta-tenant.example', active: true });
	expect(one.body.emails[0].value).toBeTruthy();
	expect(one.headers.get('etag')).toBe(one.body.meta.version);

	// Required Test: Test invalid User by username.
	const invalid = await get(`/Users?filter=${encode(`userName eq "${vars.InvalidUserEmail}"`)}`);
	expect(invalid.status).toBe(200);
	expect(invalid.body).toEqual({ schemas: [LIST], totalResults: 0, Resources: [], startIndex: 1, itemsPerPage: 0 });

	// Required Test: Test invalid User by ID.
	const noSuchId = await get(`/Users/${vars.UserIdThatDoesNotExist}`);
	expectScimError(noSuchId, 404);

	// Required Test: Make sure random user doesn't exist.
	const absent = await get(`/Users?filter=${encode(`userName eq "${vars.randomEmail}"`)}`);
	expect(absent.status).toBe(200);
	expect(absent.body.totalResults).toBe(0);
	expect(absent.body.schemas).toContain(LIST);

	// Required Test: Create Okta user with realistic values (Okta sends application/json here).
	const createBody = `{"schemas":["${USER}"],"userName":"${vars.randomUsername}","name":{"givenName":"${vars.randomGivenName}","familyName":"${vars.randomFamilyName}"},"emails":[{"primary":true,"value":"${vars.randomEmail}","type":"work"}],"displayName":"${vars.randomGivenName} ${vars.randomFamilyName}","active":true}`;
	const created = await scim(server, '/Users', { method: 'POST', headers: { ...OKTA_POST, Authorization: auth }, body: createBody });
	expect(created.status).toBe(201);
	expect(created.body).toMatchObject({ active: true, name: { familyName: vars.randomFamilyName, givenName: vars.randomGivenName }, userName: vars.randomUsername });
	expect(created.body.schemas).toContain(USER);
	expect(created.body.id).toBeTruthy();
	expectUserResource(created.body, server.baseUrl);
	// RFC 7644 §3.3: Location is the resource's URI, the same as meta.location; the ETag is meta.version.
	expect(created.headers.get('location')).toBe(created.body.meta.location);
	expect(created.headers.get('etag')).toBe(created.body.meta.version);
	const idUserOne = created.body.id as string;

	// Required Test: Verify that user was created.
	const verify = await get(`/Users/${idUserOne}`);
	expect(verify.status).toBe(200);
	expect(verify.body).toMatchObject({ userName: vars.randomUsername, name: { familyName: vars.randomFamilyName, givenName: vars.randomGivenName } });

	// Required Test: Expect failure when recreating user with same values.
	const againBody = createBody.replace(`"value":"${vars.randomEmail}"`, `"value":"${vars.randomUsername}"`);
	const again = await scim(server, '/Users', { method: 'POST', headers: { ...OKTA_POST, Authorization: auth }, body: againBody });
	expectScimError(again, 409, 'uniqueness');

	// Required Test: Username Case Sensitivity Check (userName is caseExact false: the same user).
	const caps = await get(`/Users?filter=${encode(`userName eq "${randomUsernameCaps}"`)}`);
	expect(caps.status).toBe(200);
	expect(caps.body.totalResults).toBe(1);
	expect(caps.body.Resources[0].id).toBe(idUserOne);

	// Optional Test: Verify Groups endpoint: a list response.
	const groups = await get('/Groups');
	expect(groups.status).toBe(200);
	expect(groups.body).toMatchObject({ schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'], totalResults: expect.any(Number), Resources: expect.any(Array) });

	// Required Test: Check status 401.
	const unauthorized = await get(`/Users?filter=${encode(`userName eq "${randomUsernameCaps}"`)}`, 'non-token');
	expectScimError(unauthorized, 401);

	// Required Test: Check status 404.
	expectScimError(await get('/Users/00919288221112222'), 404);

	// Okta's CRUD test goes on with a profile update (PUT, the whole user) ...
	const put = await scim(server, `/Users/${idUserOne}`, {
		method: 'PUT',
		headers: { ...OKTA_POST, Authorization: auth },
		body: { schemas: [USER], id: idUserOne, userName: vars.randomUsername, name: { givenName: 'Renamed', familyName: vars.randomFamilyName }, emails: [{ primary: true, value: vars.randomUsername, type: 'work' }], active: true },
	});
	expect(put.status).toBe(200);
	// The name reads back as sent (SPEC §21); the LMS name is the given and family names joined.
	expect(put.body.name).toEqual({ givenName: 'Renamed', familyName: vars.randomFamilyName });
	expect((await call(server, `/api/v1/users/${idUserOne}`, { headers: { authorization: auth } })).body.name).toBe(`Renamed ${vars.randomFamilyName}`);

	// ... and a deactivation, as Okta sends it: a path-less replace of active.
	const deactivate = await scim(server, `/Users/${idUserOne}`, {
		method: 'PATCH',
		headers: { ...OKTA_POST, Authorization: auth },
		body: { schemas: [PATCH_OP], Operations: [{ op: 'replace', value: { active: false } }] },
	});
	expect(deactivate.status).toBe(200);
	expect(deactivate.body.active).toBe(false);
	const viaApi = await call(server, `/api/v1/users/${idUserOne}`, { headers: { authorization: auth } });
	expect(viaApi.body).toMatchObject({ status: 'deactivated', name: `Renamed ${vars.randomFamilyName}`, email: vars.randomUsername });
});
