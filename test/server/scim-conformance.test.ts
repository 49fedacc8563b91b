import type { TestServer } from '../helpers/server';
import { startApiServer } from './api-fixtures';
import { expectScimError, expectUserResource, PATCH_OP, scim, USER } from './scim-fixtures';

/**
 * The checks of the conformance checker scim2-tester (python-scim; PyPI, which this project's
 * machines cannot reach), mirrored: discovery, then for the User resource type it discovers,
 * create / read / replace / delete, and a PATCH replace of every writable attribute the published
 * schema lists, each read back with GET.
 */

let server: TestServer;
let key: string;
beforeAll(async () => {
	({ server } = await startApiServer());
	key = (await server.createKey('acme', ['read:users', 'write:users'], 'scim2-tester')).key;
});
afterAll(() => server.stop());

interface Attribute {
	name: string;
	type: string;
	mutability: string;
	multiValued: boolean;
	subAttributes?: Attribute[];
}

let n = 0;
/** A value of the attribute's type, as the checker generates one. */
function valueFor(path: string, type: string): unknown {
	n++;
	if (type === 'boolean') return n % 2 === 0;
	if (path === 'userName' || path === 'emails.value') return `checker${n}-${Math.random().toString(36).slice(2, 7)}@acme.example`;
	if (path === 'name.formatted' || path === 'displayName') return `Formatted Name${n}`;
	return `Value${n}`;
}

test('discovery → CRUD → PATCH replace of every writable attribute of the published User schema', async () => {
	const types = await scim(server, '/ResourceTypes', { key });
	const [userType] = types.body.Resources;
	const schema = (await scim(server, `/Schemas/${userType.schema as string}`, { key })).body as { attributes: Attribute[] };

	const created = await scim(server, userType.endpoint as string, { method: 'POST', key, body: { schemas: [USER], userName: valueFor('userName', 'string'), name: { givenName: 'Check', familyName: 'Er' } } });
	expect(created.status).toBe(201);
	expectUserResource(created.body, server.baseUrl);
	const id = created.body.id as string;
	expect((await scim(server, `/Users/${id}`, { key })).body).toEqual(created.body);

	const paths: Array<[string, string]> = [];
	for (const attribute of schema.attributes) {
		if (attribute.mutability !== 'readWrite') continue;
		if (attribute.type === 'complex') {
			for (const sub of attribute.subAttributes ?? []) {
				if (sub.mutability === 'readWrite' && !(attribute.multiValued && sub.name !== 'value')) paths.push([`${attribute.name}.${sub.name}`, sub.type]);
			}
		} else paths.push([attribute.name, attribute.type]);
	}
	expect(paths.map(([p]) => p)).toEqual(['userName', 'name.formatted', 'name.familyName', 'name.givenName', 'displayName', 'title', 'active', 'emails.value']);

	for (const [path, type] of paths) {
		const value = valueFor(path, type);
		const target = path === 'emails.value' ? 'emails[type eq "work"].value' : path;
		const reply = await scim(server, `/Users/${id}`, { method: 'PATCH', key, body: { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: target, value }] } });
		expect({ path, status: reply.status }).toEqual({ path, status: 200 });
		const read = (await scim(server, `/Users/${id}`, { key })).body;
		const got = path === 'emails.value' ? read.emails[0].value : path.split('.').reduce((o: Record<string, unknown>, k) => o[k] as Record<string, unknown>, read);
		expect({ path, got }).toEqual({ path, got: value });
		expectUserResource(read, server.baseUrl);
	}

	// A required attribute cannot be removed; externalId can.
	expectScimError(await scim(server, `/Users/${id}`, { method: 'PATCH', key, body: { schemas: [PATCH_OP], Operations: [{ op: 'remove', path: 'userName' }] } }), 400, 'invalidValue');
	await scim(server, `/Users/${id}`, { method: 'PATCH', key, body: { schemas: [PATCH_OP], Operations: [{ op: 'add', path: 'externalId', value: 'checker-ext' }] } });
	const removed = await scim(server, `/Users/${id}`, { method: 'PATCH', key, body: { schemas: [PATCH_OP], Operations: [{ op: 'remove', path: 'externalId' }] } });
	expect(removed.body.externalId).toBeUndefined();

	const current = (await scim(server, `/Users/${id}`, { key })).body;
	const replaced = await scim(server, `/Users/${id}`, { method: 'PUT', key, body: { schemas: [USER], userName: current.userName, name: { formatted: 'Replaced Whole' }, active: true } });
	// A PUT is the resource whole: the name reads back as sent, no more (SPEC §21).
	expect(replaced.body).toMatchObject({ name: { formatted: 'Replaced Whole' }, active: true });
	expect(replaced.body.name).toEqual({ formatted: 'Replaced Whole' });

	expect((await scim(server, `/Users/${id}`, { method: 'DELETE', key })).status).toBe(204);
	expectScimError(await scim(server, `/Users/${id}`, { key }), 404);
});
