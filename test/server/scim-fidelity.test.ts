import fc from 'fast-check';

import { User } from '../../server/src/db';
import type { TestServer } from '../helpers/server';
import { call, feedCaughtUp, startApiServer, type World } from './api-fixtures';
import { ENTERPRISE, expectScimError, PATCH_OP, scim, USER } from './scim-fixtures';

/**
 * SPEC §21's fidelity: what an identity provider writes through POST, PUT or PATCH reads back
 * through GET exactly as written, and what the LMS does not keep is accepted and ignored alike.
 * Property-based: fast-check generates SCIM users and sequences of writes (Entra's paths such as
 * `name.givenName`, `emails[type eq "work"].value`, the enterprise extension's URN paths and its
 * bare-string manager; Okta's path-less `replace` with value objects; PUTs of the whole user;
 * attributes the LMS does not keep), applies them over HTTP to a real server, and compares every
 * answer and every GET with a model: the resource as the provider wrote it.
 */

let server: TestServer;
let world: World;
let key: string;
beforeAll(async () => {
	({ server, world } = await startApiServer());
	key = (await server.createKey('acme', ['read:users', 'write:users'], 'idp')).key;
});
afterAll(() => server.stop());

const run = Math.random().toString(36).slice(2, 8);
let serial = 0;
const fresh = (prefix: string) => `${prefix}${run}${++serial}`;

/** What the provider wrote: the model. */
interface Model {
	userName: string;
	email: string;
	active: boolean;
	externalId?: string;
	name: { formatted?: string; givenName?: string; familyName?: string };
	displayName?: string;
	title?: string;
	employeeNumber?: string;
	department?: string;
	manager?: string;
}

/** The resource GET must answer for a model (id, meta aside). */
function expected(m: Model): Record<string, unknown> {
	const enterprise = {
		...(m.employeeNumber === undefined ? {} : { employeeNumber: m.employeeNumber }),
		...(m.department === undefined ? {} : { department: m.department }),
		// title is kept once and shown in the core and in the extension.
		...(m.title === undefined ? {} : { title: m.title }),
		...(m.manager === undefined ? {} : { manager: { value: m.manager } }),
	};
	const extended = Object.keys(enterprise).length > 0;
	return {
		schemas: extended ? [USER, ENTERPRISE] : [USER],
		...(m.externalId === undefined ? {} : { externalId: m.externalId }),
		userName: m.userName,
		...(Object.keys(m.name).length === 0 ? {} : { name: m.name }),
		...(m.displayName === undefined ? {} : { displayName: m.displayName }),
		...(m.title === undefined ? {} : { title: m.title }),
		active: m.active,
		emails: [{ value: m.email, type: 'work', primary: true }],
		...(extended ? { [ENTERPRISE]: enterprise } : {}),
	};
}

const stripped = (body: Record<string, unknown>) => {
	const { id: _id, meta: _meta, ...rest } = body;
	return rest;
};

// Values as people's names are: several words, spaces inside, accents, particles.
const word = fc.constantFrom('Anne', 'Marie', 'van', 'der', 'Berg', 'José', 'Ødegård', "O'Neil", 'Li', 'de la', 'Núñez', 'Zoë', 'Mc', 'Jean-Luc', 'ß');
const phrase = fc.array(word, { minLength: 1, maxLength: 3 }).map((words) => words.join(' '));
const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });

/** Attributes the LMS does not keep, as Entra and Okta send them: accepted and ignored. */
const ignoredAttributes = fc.record(
	{
		nickName: phrase,
		password: fc.constant('S3cret!pass'),
		preferredLanguage: fc.constantFrom('en-US', 'de-DE'),
		phoneNumbers: fc.constant([{ type: 'work', value: '+1 555 0100' }]),
		addresses: fc.constant([{ type: 'work', streetAddress: '1 Main St', locality: 'Springfield', country: 'US' }]),
		userType: fc.constant('Employee'),
	},
	{ requiredKeys: [] },
);

/** A user as a provider POSTs or PUTs it, and the model it makes. */
const userArb = fc
	.record({
		userNameIsEmail: fc.boolean(),
		active: fc.boolean(),
		externalId: maybe(fc.constant('ext')),
		formatted: maybe(phrase),
		givenName: maybe(phrase),
		familyName: maybe(phrase),
		displayName: maybe(phrase),
		title: maybe(phrase),
		titleInExtension: fc.boolean(),
		employeeNumber: maybe(fc.constantFrom('E-1', '00042', 'emp 7')),
		department: maybe(phrase),
		manager: maybe(fc.constant('mgr')),
		// Entra names the manager by its id alone.
		managerBare: fc.boolean(),
		ignored: ignoredAttributes,
		ignoredExtension: maybe(fc.constant({ costCenter: 'CC-9', division: 'North' })),
	})
	.map((g) => {
		return (userName = g.userNameIsEmail ? `${fresh('u')}@idp.example` : `${fresh('Login_')} ${g.givenName ?? ''}`.trim()) => {
			const email = `${fresh('mail')}@acme.example`;
			const name = { ...(g.formatted === undefined ? {} : { formatted: g.formatted }), ...(g.givenName === undefined ? {} : { givenName: g.givenName }), ...(g.familyName === undefined ? {} : { familyName: g.familyName }) };
			const externalId = g.externalId === undefined ? undefined : fresh(g.externalId);
			const manager = g.manager === undefined ? undefined : fresh(g.manager);
			const enterprise = {
				...(g.employeeNumber === undefined ? {} : { employeeNumber: g.employeeNumber }),
				...(g.department === undefined ? {} : { department: g.department }),
				...(manager === undefined ? {} : { manager: g.managerBare ? manager : { value: manager } }),
				...(g.title !== undefined && g.titleInExtension ? { title: g.title } : {}),
				...g.ignoredExtension,
			};
			const body: Record<string, unknown> = {
				schemas: Object.keys(enterprise).length > 0 ? [USER, ENTERPRISE] : [USER],
				userName,
				active: g.active,
				emails: [{ value: email, type: 'work', primary: true }],
				...(externalId === undefined ? {} : { externalId }),
				...(Object.keys(name).length === 0 ? {} : { name }),
				...(g.displayName === undefined ? {} : { displayName: g.displayName }),
				...(g.title !== undefined && !g.titleInExtension ? { title: g.title } : {}),
				...(Object.keys(enterprise).length > 0 ? { [ENTERPRISE]: enterprise } : {}),
				...g.ignored,
			};
			const model: Model = {
				userName,
				email,
				active: g.active,
				externalId,
				name,
				displayName: g.displayName,
				title: g.title,
				employeeNumber: g.employeeNumber,
				department: g.department,
				manager,
			};
			return { body, model };
		};
	});

/** One PATCH operation: what is sent, and what it does to the model. */
type Operation = { op: Record<string, unknown>; apply: (m: Model) => void };
/**
 * An operation, or one made when it is sent: values that must be new (an e-mail, a userName, an
 * id) are made then, so that fast-check replaying a value (while shrinking) never meets its own
 * earlier write as a taken one.
 */
type Step = Operation | { lazy: () => Operation };

const nameKey = fc.constantFrom<'givenName' | 'familyName' | 'formatted'>('givenName', 'familyName', 'formatted');
const enterpriseKey = fc.constantFrom<'department' | 'employeeNumber'>('department', 'employeeNumber');
/** Paths in any case (RFC 7643 §2.1): as the schema writes them, or shouted. */
const cased = (path: string) => fc.constantFrom(path, path.toUpperCase());
const opName = (op: string) => fc.constantFrom(op, op[0].toUpperCase() + op.slice(1));

const stepArb: fc.Arbitrary<Step> = fc.oneof(
	// Entra: name.givenName, name.familyName, name.formatted.
	fc.tuple(nameKey, phrase, opName('replace')).chain(([k, v, op]) =>
		cased(`name.${k}`).map((path) => ({ op: { op, path, value: v }, apply: (m: Model) => void (m.name = { ...m.name, [k]: v }) })),
	),
	nameKey.map((k) => ({
		op: { op: 'remove', path: `name.${k}` },
		apply: (m: Model) => {
			const { [k]: _gone, ...rest } = m.name;
			m.name = rest;
		},
	})),
	fc.tuple(phrase, opName('replace')).map(([v, op]) => ({ op: { op, path: 'displayName', value: v }, apply: (m: Model) => void (m.displayName = v) })),
	fc.constant({ op: { op: 'remove', path: 'displayName' }, apply: (m: Model) => void (m.displayName = undefined) }),
	// Entra: the work e-mail; userName stays.
	fc.constant({
		lazy: () => {
			const email = `${fresh('moved')}@acme.example`;
			return { op: { op: 'Replace', path: 'emails[type eq "work"].value', value: email }, apply: (m: Model) => void (m.email = email) };
		},
	}),
	// userName, e-mail or not.
	fc.boolean().map((isEmail) => ({
		lazy: () => {
			const userName = isEmail ? `${fresh('renamed')}@idp.example` : fresh('login ');
			return { op: { op: 'replace', path: 'userName', value: userName }, apply: (m: Model) => void (m.userName = userName) };
		},
	})),
	fc.tuple(phrase, opName('replace')).map(([v, op]) => ({ op: { op, path: 'title', value: v }, apply: (m: Model) => void (m.title = v) })),
	fc.constant({ op: { op: 'remove', path: 'title' }, apply: (m: Model) => void (m.title = undefined) }),
	// The enterprise extension by URN path (Entra).
	fc.tuple(enterpriseKey, phrase, opName('add')).map(([k, v, op]) => ({ op: { op, path: `${ENTERPRISE}:${k}`, value: v }, apply: (m: Model) => void (m[k] = v) })),
	enterpriseKey.map((k) => ({ op: { op: 'Remove', path: `${ENTERPRISE}:${k}` }, apply: (m: Model) => void (m[k] = undefined) })),
	// Entra's manager: its id as a bare string; or manager.value.
	fc.boolean().map((bare) => ({
		lazy: () => {
			const id = fresh('mgr');
			return bare
				? { op: { op: 'Add', path: `${ENTERPRISE}:manager`, value: id }, apply: (m: Model) => void (m.manager = id) }
				: { op: { op: 'replace', path: `${ENTERPRISE}:manager.value`, value: id }, apply: (m: Model) => void (m.manager = id) };
		},
	})),
	fc.constant({ op: { op: 'Remove', path: `${ENTERPRISE}:manager` }, apply: (m: Model) => void (m.manager = undefined) }),
	// Okta: a path-less replace with value objects.
	fc.record({ givenName: phrase, familyName: phrase, department: maybe(phrase) }).map(({ givenName, familyName, department }) => ({
		op: { op: 'replace', value: { name: { givenName, familyName }, ...(department === undefined ? {} : { [ENTERPRISE]: { department } }) } },
		apply: (m: Model) => {
			m.name = { ...m.name, givenName, familyName };
			if (department !== undefined) m.department = department;
		},
	})),
	fc.boolean().map((active) => ({ op: { op: 'replace', value: { active } }, apply: (m: Model) => void (m.active = active) })),
	// Entra's boolean strings.
	fc.boolean().map((active) => ({ op: { op: 'Replace', path: 'active', value: active ? 'True' : 'False' }, apply: (m: Model) => void (m.active = active) })),
	fc.constant({
		lazy: () => {
			const externalId = fresh('ext');
			return { op: { op: 'replace', path: 'externalId', value: externalId }, apply: (m: Model) => void (m.externalId = externalId) };
		},
	}),
	fc.constant({ op: { op: 'remove', path: 'externalId' }, apply: (m: Model) => void (m.externalId = undefined) }),
	// What the LMS does not keep: ignored, whatever else the PATCH holds.
	fc.constantFrom(
		{ op: 'replace', path: 'phoneNumbers[type eq "work"].value', value: '+1 555 0199' },
		{ op: 'Add', path: 'nickName', value: 'Babs' },
		{ op: 'replace', path: 'preferredLanguage', value: 'fr-FR' },
		{ op: 'replace', path: 'addresses[type eq "work"].locality', value: 'Paris' },
		{ op: 'add', path: `${ENTERPRISE}:costCenter`, value: 'CC-1' },
		{ op: 'replace', path: 'password', value: 'N3w!secret' },
		{ op: 'replace', value: { nickName: 'Bo', 'addresses[type eq "work"].country': 'FR' } },
	).map((op) => ({ op, apply: () => undefined })),
);

/** A write after the create: a PATCH of 1–3 operations, or a PUT of a whole new user. */
const writeArb = fc.oneof(
	{ weight: 4, arbitrary: fc.array(stepArb, { minLength: 1, maxLength: 3 }).map((steps) => ({ kind: 'patch' as const, steps })) },
	{ weight: 1, arbitrary: userArb.map((make) => ({ kind: 'put' as const, make })) },
);

async function expectReadsBack(id: string, model: Model, answer: Record<string, unknown>): Promise<void> {
	expect(stripped(answer)).toEqual(expected(model));
	const got = await scim(server, `/Users/${id}`, { key });
	expect(got.status).toBe(200);
	expect(stripped(got.body)).toEqual(expected(model));
	// /api/v1 shows the same username, e-mail and profile.
	const api = await call(server, `/api/v1/users/${id}`, { key: world.keys.all });
	expect(api.body).toMatchObject({
		username: model.userName,
		email: model.email,
		status: model.active ? 'active' : 'deactivated',
		external_id: model.externalId ?? null,
		profile: { title: model.title ?? null, department: model.department ?? null, employee_number: model.employeeNumber ?? null, manager_id: model.manager ?? null },
	});
}

test('what POST, PUT and PATCH write reads back through GET exactly as written; what the LMS does not keep is ignored alike (property)', async () => {
	await fc.assert(
		fc.asyncProperty(userArb, fc.array(writeArb, { minLength: 1, maxLength: 4 }), async (makeUser, writes) => {
			const { body, model } = makeUser();
			const created = await scim(server, '/Users', { method: 'POST', key, body });
			expect(created.status).toBe(201);
			const id = created.body.id as string;
			await expectReadsBack(id, model, created.body);
			let current = model;
			for (const write of writes) {
				if (write.kind === 'put') {
					const { body: whole, model: next } = write.make(current.userName);
					const reply = await scim(server, `/Users/${id}`, { method: 'PUT', key, body: whole });
					expect(reply.status).toBe(200);
					// externalId absent from a PUT is kept (another door may own it).
					current = { ...next, externalId: next.externalId ?? current.externalId };
					await expectReadsBack(id, current, reply.body);
				} else {
					const next: Model = { ...current, name: { ...current.name } };
					const operations = write.steps.map((s) => ('lazy' in s ? s.lazy() : s));
					for (const operation of operations) operation.apply(next);
					const reply = await scim(server, `/Users/${id}`, { method: 'PATCH', key, body: { schemas: [PATCH_OP], Operations: operations.map((s) => s.op) } });
					expect({ status: reply.status, detail: reply.body?.detail }).toEqual({ status: 200, detail: undefined });
					current = next;
					await expectReadsBack(id, current, reply.body);
				}
			}
		}),
		{ numRuns: 50 },
	);
}, 120_000);

test('"Anne Marie" / "van der Berg" stays so; the LMS name is derived from what was written', async () => {
	const userName = fresh('anne.');
	const reply = await scim(server, '/Users', {
		method: 'POST',
		key,
		body: { schemas: [USER], userName, emails: [{ value: `${fresh('anne')}@acme.example`, primary: true }], name: { givenName: 'Anne Marie', familyName: 'van der Berg' }, displayName: 'Anne' },
	});
	expect(reply.status).toBe(201);
	expect(reply.body).toMatchObject({ userName, name: { givenName: 'Anne Marie', familyName: 'van der Berg' }, displayName: 'Anne' });
	expect(reply.body.name.formatted).toBeUndefined();
	const api = (await call(server, `/api/v1/users/${reply.body.id as string}`, { key: world.keys.all })).body;
	expect(api).toMatchObject({ name: 'Anne Marie van der Berg', username: userName });
	// A change of the name through the API shows through SCIM as the LMS name.
	await call(server, `/api/v1/users/${reply.body.id as string}`, { method: 'PATCH', key: world.keys.all, body: { name: 'Anne-Marie Berg' } });
	expect((await scim(server, `/Users/${reply.body.id as string}`, { key })).body).toMatchObject({ name: { formatted: 'Anne-Marie Berg', givenName: 'Anne-Marie', familyName: 'Berg' }, displayName: 'Anne-Marie Berg' });
});

test('title is kept once, read in the core and the extension: a PUT saying it in either keeps it, a PATCH removing either clears it', async () => {
	const made = await scim(server, '/Users', { method: 'POST', key, body: { schemas: [USER], userName: fresh('t'), emails: [{ value: `${fresh('t')}@acme.example` }], title: 'Engineer' } });
	expect(made.body).toMatchObject({ title: 'Engineer', [ENTERPRISE]: { title: 'Engineer' } });
	const at = `/Users/${made.body.id as string}`;
	const put = await scim(server, at, { method: 'PUT', key, body: { schemas: [USER, ENTERPRISE], userName: made.body.userName, [ENTERPRISE]: { title: 'Engineer' } } });
	expect(put.body).toMatchObject({ title: 'Engineer', [ENTERPRISE]: { title: 'Engineer' } });
	const removed = await scim(server, at, { method: 'PATCH', key, body: { schemas: [PATCH_OP], Operations: [{ op: 'remove', path: 'title' }] } });
	expect(removed.body.title).toBeUndefined();
	expect(removed.body[ENTERPRISE]).toBeUndefined();
	const put2 = await scim(server, at, { method: 'PUT', key, body: { schemas: [USER], userName: made.body.userName, title: 'Lead' } });
	expect(put2.body).toMatchObject({ title: 'Lead', [ENTERPRISE]: { title: 'Lead' } });
	const removedExt = await scim(server, at, { method: 'PATCH', key, body: { schemas: [PATCH_OP], Operations: [{ op: 'remove', path: `${ENTERPRISE}:title` }] } });
	expect(removedExt.body.title).toBeUndefined();
});

test('users?department= finds the people of a department ignoring case; userName eq finds the username, emails.value the e-mail', async () => {
	const department = fresh('Dept ');
	const a = await scim(server, '/Users', { method: 'POST', key, body: { schemas: [USER, ENTERPRISE], userName: fresh('a'), emails: [{ value: `${fresh('a')}@acme.example` }], [ENTERPRISE]: { department } } });
	const b = await scim(server, '/Users', { method: 'POST', key, body: { schemas: [USER, ENTERPRISE], userName: fresh('b'), emails: [{ value: `${fresh('b')}@acme.example` }], [ENTERPRISE]: { department: department.toUpperCase() } } });
	expect([a.status, b.status]).toEqual([201, 201]);
	const listed = await call(server, `/api/v1/users?department=${encodeURIComponent(department.toLowerCase())}`, { key: world.keys.all });
	expect(listed.status).toBe(200);
	expect(listed.body.data.map((u: { id: string }) => u.id).sort()).toEqual([a.body.id, b.body.id].sort());
	const byUserName = await scim(server, `/Users?filter=${encodeURIComponent(`userName eq "${(a.body.userName as string).toUpperCase()}"`)}`, { key });
	expect(byUserName.body.Resources.map((r: { id: string }) => r.id)).toEqual([a.body.id]);
	const byEmail = await scim(server, `/Users?filter=${encodeURIComponent(`emails.value eq "${a.body.emails[0].value as string}"`)}`, { key });
	expect(byEmail.body.Resources.map((r: { id: string }) => r.id)).toEqual([a.body.id]);
	expect((await scim(server, `/Users?filter=${encodeURIComponent(`userName eq "${a.body.emails[0].value as string}"`)}`, { key })).body.totalResults).toBe(0);
});

test('usernames are unique in the organization ignoring case: 409 uniqueness through SCIM; an API e-mail that is another user\'s username is 409 username_taken', async () => {
	const userName = fresh('Unique.');
	const first = await scim(server, '/Users', { method: 'POST', key, body: { schemas: [USER], userName, emails: [{ value: `${fresh('x')}@acme.example` }] } });
	expect(first.status).toBe(201);
	expectScimError(await scim(server, '/Users', { method: 'POST', key, body: { schemas: [USER], userName: userName.toLowerCase(), emails: [{ value: `${fresh('y')}@acme.example` }] } }), 409, 'uniqueness');
	const other = await scim(server, '/Users', { method: 'POST', key, body: { schemas: [USER], userName: fresh('other'), emails: [{ value: `${fresh('z')}@acme.example` }] } });
	expectScimError(await scim(server, `/Users/${other.body.id as string}`, { method: 'PATCH', key, body: { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'userName', value: userName.toUpperCase() }] } }), 409, 'uniqueness');

	const emailName = `${fresh('login')}@idp.example`;
	const holder = await scim(server, '/Users', { method: 'POST', key, body: { schemas: [USER], userName: emailName, emails: [{ value: `${fresh('w')}@acme.example` }] } });
	const taken = await call(server, '/api/v1/users', { method: 'POST', key: world.keys.all, body: { name: 'Dup', email: emailName.toUpperCase() } });
	expect(taken.status).toBe(409);
	expect(taken.body).toMatchObject({ code: 'username_taken', user_id: holder.body.id });
});

test('an API change of e-mail moves a username that is the e-mail, and leaves one set apart', async () => {
	const made = await call(server, '/api/v1/users', { method: 'POST', key: world.keys.all, body: { name: 'Follow Me', email: `${fresh('f')}@acme.example` } });
	expect(made.body.username).toBe(made.body.email);
	const email = `${fresh('g')}@acme.example`;
	const moved = await call(server, `/api/v1/users/${made.body.id as string}`, { method: 'PATCH', key: world.keys.all, body: { email } });
	expect(moved.body).toMatchObject({ email, username: email });
	const apart = fresh('apart');
	await scim(server, `/Users/${made.body.id as string}`, { method: 'PATCH', key, body: { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'userName', value: apart }] } });
	const later = await call(server, `/api/v1/users/${made.body.id as string}`, { method: 'PATCH', key: world.keys.all, body: { email: `${fresh('h')}@acme.example` } });
	expect(later.body.username).toBe(apart);
});

test('a SCIM create is one transaction: concurrent duplicate POSTs make one user, the others answer 409 uniqueness, never 500', async () => {
	await feedCaughtUp(server, world.keys.all, world.acme.id);
	const head = (await call(server, '/api/v1/events/head', { key: world.keys.all })).body.after as string | null;
	const userName = fresh('racer.');
	const replies = await Promise.all(
		Array.from({ length: 8 }, (_, i) =>
			scim(server, '/Users', { method: 'POST', key, body: { schemas: [USER, ENTERPRISE], userName, active: false, emails: [{ value: `${fresh(`r${i}`)}@acme.example` }], [ENTERPRISE]: { department: 'Racing' } } }),
		),
	);
	expect(replies.filter((r) => r.status === 201)).toHaveLength(1);
	for (const r of replies.filter((x) => x.status !== 201)) expectScimError(r, 409, 'uniqueness');
	expect(await User.count({ where: { organizationId: world.acme.id, usernameLower: userName.toLowerCase() } })).toBe(1);
	const winner = replies.find((r) => r.status === 201)!;
	expect(winner.body).toMatchObject({ active: false, [ENTERPRISE]: { department: 'Racing' } });
	// Created inactive with its profile: user.created then user.deactivated, nothing of the losers.
	await feedCaughtUp(server, world.keys.all, world.acme.id);
	const events = (await call(server, `/api/v1/events?${head === null ? '' : `after=${head}&`}limit=100`, { key: world.keys.all })).body.data as Array<{ type: string; data: { object: { id: string; profile: { department: string } } } }>;
	expect(events.map((e) => [e.type, e.data.object.id, e.data.object.profile.department])).toEqual([
		['user.created', winner.body.id, 'Racing'],
		['user.deactivated', winner.body.id, 'Racing'],
	]);

	const email = `${fresh('same')}@acme.example`;
	const sameEmail = await Promise.all(
		Array.from({ length: 8 }, () => scim(server, '/Users', { method: 'POST', key, body: { schemas: [USER], userName: fresh('e'), emails: [{ value: email }] } })),
	);
	expect(sameEmail.filter((r) => r.status === 201)).toHaveLength(1);
	for (const r of sameEmail.filter((x) => x.status !== 201)) expectScimError(r, 409, 'uniqueness');
});
