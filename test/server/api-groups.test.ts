import { Enrollment, User } from '../../server/src/db';
import { overdueMembers } from '../../server/src/reports/overdue-members';
import type { TestServer } from '../helpers/server';
import { waitUntil } from '../helpers/wait';
import { call, expectProblem, feedCaughtUp, startApiServer, type World } from './api-fixtures';

/**
 * Groups and their members (SPEC §20): the resource, its filters, members added and removed with
 * their events, organization isolation, bad input that changes nothing, and the races the
 * database decides (run on PostgreSQL by test:postgres).
 */

let server: TestServer;
let world: World;
beforeAll(async () => {
	({ server, world } = await startApiServer());
});
afterAll(() => server.stop());

const api = (path: string, method = 'GET', body?: unknown, key = world.keys.all) => call(server, `/api/v1${path}`, { method, key, body });
let n = 0;
const newGroup = async (fields: object = {}) => {
	const reply = await api('/groups', 'POST', { name: `Group ${++n}`, ...fields });
	expect(reply.status).toBe(201);
	return reply.body as { id: string; name: string };
};

describe('groups', () => {
	test('create, get, list by name (any case), external_id, search and member, update, delete', async () => {
		const created = await api('/groups', 'POST', { name: 'Sales EMEA', description: 'Field sales', external_id: 'okta-00g1' });
		expect(created.status).toBe(201);
		expect(created.headers.get('location')).toBe(`/api/v1/groups/${created.body.id}`);
		expect(created.body).toEqual({
			id: expect.stringMatching(/^grp_/),
			name: 'Sales EMEA',
			description: 'Field sales',
			external_id: 'okta-00g1',
			member_count: 0,
			created_at: expect.any(String),
			updated_at: expect.any(String),
		});
		const id = created.body.id;
		expect((await api(`/groups/${id}`)).body).toEqual(created.body);
		expect((await api('/groups?name=sales%20emea')).body.data.map((g: { id: string }) => g.id)).toEqual([id]);
		expect((await api('/groups?external_id=okta-00g1')).body.data.map((g: { id: string }) => g.id)).toEqual([id]);
		expect((await api('/groups?external_id=OKTA-00G1')).body.data).toEqual([]);
		expect((await api('/groups?search=les%20em')).body.data.map((g: { id: string }) => g.id)).toEqual([id]);
		await api(`/groups/${id}/members`, 'POST', { user_ids: [world.users.alice.id] });
		expect((await api(`/groups?member=${world.users.alice.id}`)).body.data.map((g: { id: string }) => g.id)).toEqual([id]);

		const patched = await api(`/groups/${id}`, 'PATCH', { name: 'Sales Europe', description: null });
		expect(patched.status).toBe(200);
		expect(patched.body).toMatchObject({ name: 'Sales Europe', description: null, external_id: 'okta-00g1', member_count: 1 });

		expect((await api(`/groups/${id}`, 'DELETE')).status).toBe(204);
		expectProblem(await api(`/groups/${id}`), 404, 'not_found');
		expect((await api(`/groups?member=${world.users.alice.id}`)).body.data).toEqual([]);
	});

	test('PATCH with null clears description and external_id (SPEC §20: null or …); the cleared external id is free again', async () => {
		const group = await newGroup({ description: 'Night shift', external_id: 'ext-clear-me' });
		const cleared = await api(`/groups/${group.id}`, 'PATCH', { description: null, external_id: null });
		expect(cleared.status).toBe(200);
		expect(cleared.body).toMatchObject({ id: group.id, name: group.name, description: null, external_id: null });
		expect((await api(`/groups/${group.id}`)).body).toMatchObject({ description: null, external_id: null });
		expect((await api('/groups?external_id=ext-clear-me')).body.data).toEqual([]);
		expect((await newGroup({ external_id: 'ext-clear-me' })).id).not.toBe(group.id);
	});

	test('names are unique in any case and external ids unique: 409 naming the group, nothing written', async () => {
		const first = await newGroup({ name: 'Support', external_id: 'ext-support' });
		const sameName = await api('/groups', 'POST', { name: 'SUPPORT' });
		expectProblem(sameName, 409, 'group_name_taken');
		expect(sameName.body.group_id).toBe(first.id);
		const sameId = await api('/groups', 'POST', { name: 'Support 2', external_id: 'ext-support' });
		expectProblem(sameId, 409, 'external_id_taken');
		expect(sameId.body.group_id).toBe(first.id);
		const other = await newGroup();
		expectProblem(await api(`/groups/${other.id}`, 'PATCH', { name: 'support' }), 409, 'group_name_taken');
		expect((await api('/groups?search=support')).body.pagination.total).toBe(1);
	});

	test("another organization's group is 404 by every door, and its name is free here", async () => {
		const theirs = (await call(server, '/api/v1/groups', { method: 'POST', key: world.keys.globex, body: { name: 'Shared name' } })).body;
		expect(theirs.id).toMatch(/^grp_/);
		expectProblem(await api(`/groups/${theirs.id}`), 404, 'not_found');
		expectProblem(await api(`/groups/${theirs.id}`, 'PATCH', { name: 'x' }), 404, 'not_found');
		expectProblem(await api(`/groups/${theirs.id}`, 'DELETE'), 404, 'not_found');
		expectProblem(await api(`/groups/${theirs.id}/members`), 404, 'not_found');
		expectProblem(await api(`/groups/${theirs.id}/members`, 'POST', { user_ids: [world.users.alice.id] }), 404, 'not_found');
		expect((await api('/groups', 'POST', { name: 'Shared name' })).status).toBe(201);
		// A user of another organization cannot be added.
		const mine = await newGroup();
		const foreign = await api(`/groups/${mine.id}/members`, 'POST', { user_ids: [world.globexRecords.student.id] });
		expectProblem(foreign, 422, 'user_not_found');
	});

	test('scopes: read:users reads, write:users writes; enrollment keys cannot', async () => {
		const group = await newGroup();
		expect((await api(`/groups/${group.id}`, 'GET', undefined, world.keys.readUsers)).status).toBe(200);
		expectProblem(await api('/groups', 'POST', { name: 'No' }, world.keys.readUsers), 403, 'insufficient_scope');
		expectProblem(await api('/groups', 'GET', undefined, world.keys.readEnrollments), 403, 'insufficient_scope');
	});

	test('bad input: 400 for malformed bodies and 1,001 ids, 422 naming unknown users; nothing changes', async () => {
		const group = await newGroup();
		expectProblem(await api('/groups', 'POST', { name: '' }), 400, 'invalid_request');
		expectProblem(await api('/groups', 'POST', { name: 'x'.repeat(201) }), 400, 'invalid_request');
		expectProblem(await api('/groups', 'POST', { name: 'ok', description: 'x'.repeat(1001) }), 400, 'invalid_request');
		expectProblem(await api('/groups?member=nope'), 400, 'invalid_request');
		const tooMany = Array.from({ length: 1001 }, (_, i) => `usr_${i}`);
		expectProblem(await api(`/groups/${group.id}/members`, 'POST', { user_ids: tooMany }), 400, 'invalid_request');
		const unknown = await api(`/groups/${group.id}/members`, 'POST', { user_ids: [world.users.bob.id, 'usr_nobody', 'not an id'] });
		expectProblem(unknown, 422, 'user_not_found');
		expect(unknown.body.user_ids).toEqual(['usr_nobody', 'not an id']);
		expect(unknown.body.detail).toContain('usr_nobody');
		expect((await api(`/groups/${group.id}`)).body.member_count).toBe(0);
		expect((await api(`/groups/${group.id}/members`)).body.data).toEqual([]);
	});

	test('members: added / unchanged, removed / unchanged, users?group_id=, member_count, one event per user', async () => {
		const group = await newGroup();
		const { alice, bob, instructor } = world.users;
		const added = await api(`/groups/${group.id}/members`, 'POST', { user_ids: [alice.id, bob.id, instructor.id] });
		expect(added.status).toBe(200);
		expect(added.body).toEqual({ added: [alice.id, bob.id, instructor.id], unchanged: [] });
		expect((await api(`/groups/${group.id}/members`, 'POST', { user_ids: [alice.id] })).body).toEqual({ added: [], unchanged: [alice.id] });

		const members = await api(`/groups/${group.id}/members`);
		expect(members.body.data.map((u: { id: string }) => u.id)).toEqual([instructor.id, alice.id, bob.id]);
		expect(members.body.pagination).toEqual({ page: 1, per_page: 50, total: 3 });
		expect((await api(`/users?group_id=${group.id}&role=student`)).body.data.map((u: { id: string }) => u.id)).toEqual([alice.id, bob.id]);
		expect((await api(`/groups/${group.id}`)).body.member_count).toBe(3);

		expect((await api(`/groups/${group.id}/members/remove`, 'POST', { user_ids: [bob.id, world.users.carol.id] })).body).toEqual({ removed: [bob.id], unchanged: [world.users.carol.id] });
		expect((await api(`/groups/${group.id}/members/${instructor.id}`, 'DELETE')).status).toBe(204);
		expect((await api(`/groups/${group.id}/members/${instructor.id}`, 'DELETE')).status).toBe(204);
		expect((await api(`/groups/${group.id}`)).body.member_count).toBe(1);

		await feedCaughtUp(server, world.keys.all, world.acme.id);
		const events = (await api('/events?type=group.*&limit=100')).body.data.filter(
			(e: { data: { object: { group_id?: string; id?: string } } }) => e.data.object.group_id === group.id || e.data.object.id === group.id,
		);
		expect(events.map((e: { type: string; data: { object: object } }) => [e.type, e.data.object])).toEqual([
			['group.created', expect.objectContaining({ id: group.id })],
			['group.member_added', { group_id: group.id, user_id: alice.id }],
			['group.member_added', { group_id: group.id, user_id: bob.id }],
			['group.member_added', { group_id: group.id, user_id: instructor.id }],
			['group.member_removed', { group_id: group.id, user_id: bob.id }],
			['group.member_removed', { group_id: group.id, user_id: instructor.id }],
		]);
		// SPEC §20: a membership event's `data` names the pair itself, in the feed and read alone.
		const removal = events.find((e: { type: string }) => e.type === 'group.member_removed');
		expect(removal.data).toEqual({ object: { group_id: group.id, user_id: bob.id }, group_id: group.id, user_id: bob.id });
		expect((await api(`/events/${removal.id}`)).body.data).toEqual(removal.data);
		// Roster data: a read:users key sees group events, a read:enrollments key does not.
		expect((await api('/events?type=group.*', 'GET', undefined, world.keys.readUsers)).status).toBe(200);
		expectProblem(await api('/events?type=group.member_added', 'GET', undefined, world.keys.readEnrollments), 403, 'insufficient_scope');
	});

	test('races: the same name created twice → one 201, one 409; the same member added twice → one added, one unchanged, one event', async () => {
		const name = `Raced ${Date.now()}`;
		const creates = await Promise.all([api('/groups', 'POST', { name }), api('/groups', 'POST', { name: name.toUpperCase() })]);
		expect(creates.map((r) => r.status).sort()).toEqual([201, 409]);
		const winner = creates.find((r) => r.status === 201)!.body;
		expect(creates.find((r) => r.status === 409)!.body.group_id).toBe(winner.id);

		const user = await User.create({ organizationId: world.acme.id, name: 'Racer', email: `racer${Date.now()}@acme.example`, role: 'student', passwordHash: null });
		const adds = await Promise.all([0, 1, 2].map(() => api(`/groups/${winner.id}/members`, 'POST', { user_ids: [user.id] })));
		expect(adds.map((r) => r.status)).toEqual([200, 200, 200]);
		expect(adds.flatMap((r) => r.body.added)).toEqual([user.id]);
		expect(adds.flatMap((r) => r.body.unchanged)).toEqual([user.id, user.id]);
		expect((await api(`/groups/${winner.id}`)).body.member_count).toBe(1);
		await feedCaughtUp(server, world.keys.all, world.acme.id);
		const added = (await api('/events?type=group.member_added&limit=100')).body.data.filter((e: { data: { object: { user_id: string } } }) => e.data.object.user_id === user.id);
		expect(added).toHaveLength(1);
	});
});

describe('assignments', () => {
	const assign = (body: object, key = world.keys.all) => api('/assignments', 'POST', body, key);
	const student = (name: string, status: 'active' | 'deactivated' = 'active') =>
		User.create({ organizationId: world.acme.id, name, email: `${name.toLowerCase()}${++n}@acme.example`, role: 'student', passwordHash: null, status });
	const enrollmentOf = (studentId: string, courseId: string) => Enrollment.findOne({ where: { studentId, courseId } });

	test('applies to active student members only, skips existing enrollments, sets due_at and assignment_id, then applied_at', async () => {
		const group = await newGroup();
		const [s1, s2, gone] = [await student('Una'), await student('Vic'), await student('Wes', 'deactivated')];
		const { instructor } = world.users;
		const course = world.courses.safety;
		await Enrollment.create({ organizationId: world.acme.id, studentId: s2.id, courseId: course.id, status: 'withdrawn', progressPercent: 0, enrolledAt: new Date(), completedAt: null });
		await api(`/groups/${group.id}/members`, 'POST', { user_ids: [s1.id, s2.id, gone.id, instructor.id] });

		const created = await assign({ group_id: group.id, course_id: course.id, due_in_days: 30 });
		expect(created.status).toBe(201);
		expect(created.body).toEqual({
			id: expect.stringMatching(/^asg_/),
			group_id: group.id,
			course_id: course.id,
			due_in_days: 30,
			on_removal: 'keep',
			applied_at: null,
			created_at: expect.any(String),
		});
		const id = created.body.id;
		const applied = await waitUntil(async () => (await api(`/assignments/${id}`)).body.applied_at, { what: 'applied_at' });
		expect(Date.parse(applied)).toBeGreaterThanOrEqual(Date.parse(created.body.created_at));

		const made = await api(`/enrollments?assignment_id=${id}`);
		expect(made.body.data).toEqual([
			expect.objectContaining({
				student_id: s1.id,
				course_id: course.id,
				status: 'active',
				assignment_id: id,
				due_at: new Date(Date.parse(created.body.created_at) + 30 * 86_400_000).toISOString(),
			}),
		]);
		expect((await enrollmentOf(s2.id, course.id))!.status).toBe('withdrawn');
		expect(await enrollmentOf(gone.id, course.id)).toBeNull();
		expect((await api(`/enrollments?group_id=${group.id}&course_id=${course.id}`)).body.pagination.total).toBe(2);
		expect((await api(`/assignments?group_id=${group.id}`)).body.data.map((a: { id: string }) => a.id)).toEqual([id]);

		await feedCaughtUp(server, world.keys.all, world.acme.id);
		const createdEvents = (await api('/events?type=enrollment.created&limit=100')).body.data.filter((e: { data: { object: { assignment_id: string } } }) => e.data.object.assignment_id === id);
		expect(createdEvents.map((e: { data: { object: { student_id: string } } }) => e.data.object.student_id)).toEqual([s1.id]);
	});

	test('a later join is enrolled in the same transaction; a leave with withdraw withdraws only what the assignment made; completed never changes', async () => {
		const group = await newGroup();
		const keepCourse = world.courses.intro;
		const withdrawCourse = world.courses.advanced;
		const keep = (await assign({ group_id: group.id, course_id: keepCourse.id })).body;
		const withdraw = (await assign({ group_id: group.id, course_id: withdrawCourse.id, on_removal: 'withdraw' })).body;
		const [joiner, finisher] = [await student('Xena'), await student('Yuri')];

		const joined = await api(`/groups/${group.id}/members`, 'POST', { user_ids: [joiner.id, finisher.id] });
		expect(joined.body.added).toEqual([joiner.id, finisher.id]);
		// Enrolled by the time the join answers: same transaction.
		expect((await enrollmentOf(joiner.id, keepCourse.id))!.assignmentId).toBe(keep.id);
		expect((await enrollmentOf(joiner.id, withdrawCourse.id))!.assignmentId).toBe(withdraw.id);
		const finished = (await enrollmentOf(finisher.id, withdrawCourse.id))!;
		await api(`/enrollments/${finished.id}`, 'PATCH', { status: 'completed' });

		const left = await api(`/groups/${group.id}/members/remove`, 'POST', { user_ids: [joiner.id, finisher.id] });
		expect(left.body.removed).toEqual([joiner.id, finisher.id]);
		expect((await enrollmentOf(joiner.id, withdrawCourse.id))!.status).toBe('withdrawn');
		expect((await enrollmentOf(joiner.id, keepCourse.id))!.status).toBe('active');
		expect((await enrollmentOf(finisher.id, withdrawCourse.id))!.status).toBe('completed');
	});

	test('a deleted group ends its assignments as if every member left; a deleted assignment leaves its enrollments', async () => {
		const group = await newGroup();
		const member = await student('Zed');
		await api(`/groups/${group.id}/members`, 'POST', { user_ids: [member.id] });
		const kept = (await assign({ group_id: group.id, course_id: world.courses.intro.id })).body;
		const withdrawn = (await assign({ group_id: group.id, course_id: world.courses.safety.id, on_removal: 'withdraw' })).body;
		await waitUntil(async () => (await api(`/assignments/${withdrawn.id}`)).body.applied_at && (await api(`/assignments/${kept.id}`)).body.applied_at, { what: 'both applied' });

		expect((await api(`/assignments/${kept.id}`, 'DELETE')).status).toBe(204);
		expectProblem(await api(`/assignments/${kept.id}`), 404, 'not_found');
		expect((await enrollmentOf(member.id, world.courses.intro.id))!.status).toBe('active');

		expect((await api(`/groups/${group.id}`, 'DELETE')).status).toBe(204);
		expectProblem(await api(`/assignments/${withdrawn.id}`), 404, 'not_found');
		expect((await enrollmentOf(member.id, world.courses.safety.id))!.status).toBe('withdrawn');
		expect((await enrollmentOf(member.id, world.courses.intro.id))!.status).toBe('active');
	});

	test('bad input: a draft course, an unknown or foreign group, a duplicate, out-of-range days; nothing is created', async () => {
		const group = await newGroup();
		expectProblem(await assign({ group_id: group.id, course_id: world.courses.draft.id }), 422, 'course_not_published');
		expectProblem(await assign({ group_id: 'grp_nope', course_id: world.courses.intro.id }), 422, 'group_not_found');
		const theirs = (await call(server, '/api/v1/groups', { method: 'POST', key: world.keys.globex, body: { name: `Theirs ${n}` } })).body;
		expectProblem(await assign({ group_id: theirs.id, course_id: world.courses.intro.id }), 422, 'group_not_found');
		expectProblem(await assign({ group_id: group.id, course_id: world.courses.intro.id, due_in_days: 0 }), 400, 'invalid_request');
		expectProblem(await assign({ group_id: group.id, course_id: world.courses.intro.id, due_in_days: 3651 }), 400, 'invalid_request');
		expectProblem(await assign({ group_id: group.id, course_id: world.courses.intro.id, on_removal: 'drop' }), 400, 'invalid_request');
		expect((await api(`/assignments?group_id=${group.id}`)).body.data).toEqual([]);
		const first = await assign({ group_id: group.id, course_id: world.courses.intro.id });
		const again = await assign({ group_id: group.id, course_id: world.courses.intro.id, due_in_days: 5 });
		expectProblem(again, 409, 'assignment_exists');
		expect(again.body.assignment_id).toBe(first.body.id);
		expectProblem(await assign({ group_id: group.id, course_id: world.courses.advanced.id }, world.keys.readEnrollments), 403, 'insufficient_scope');
	});

	test("reports: course_completion?group_id= counts only the group's members; the overdue list names them, paged", async () => {
		const group = await newGroup();
		const [late, onTime, outsider] = [await student('Lena'), await student('Otto'), await student('Paul')];
		await api(`/groups/${group.id}/members`, 'POST', { user_ids: [late.id, onTime.id] });
		const course = world.courses.advanced;
		const past = new Date(Date.now() - 3.5 * 86_400_000).toISOString();
		for (const [who, due] of [[late, past], [onTime, null], [outsider, past]] as const) {
			expect((await api('/enrollments', 'POST', { student_id: who.id, course_id: course.id, due_at: due })).status).toBe(201);
		}
		const report = await api(`/reports/course_completion?group_id=${group.id}&course_id=${course.id}`);
		expect(report.body.data).toEqual([expect.objectContaining({ course_id: course.id, enrolled: 2, active: 2, completed: 0, overdue: 1, completion_rate: 0 })]);
		const csv = await call(server, `/api/v1/reports/course_completion?group_id=${group.id}&course_id=${course.id}`, { key: world.keys.all, headers: { accept: 'text/csv' } });
		expect(csv.text.split('\r\n')[1]).toMatch(new RegExp(`^${course.id},Advanced,2,2,0,0,0,1,0,`));
		// Another organization's key sees nothing of it.
		const foreign = await call(server, `/api/v1/reports/course_completion?group_id=${group.id}`, { key: world.keys.globex });
		expect(foreign.body.data.every((row: { enrolled: number }) => row.enrolled === 0)).toBe(true);

		const { rows, total } = await overdueMembers(world.acme.id, group.id, { page: 1, perPage: 10 });
		expect(total).toBe(1);
		expect(rows).toEqual([
			{ user_id: late.id, name: 'Lena', email: late.email, enrollment_id: expect.stringMatching(/^enr_/), course_id: course.id, course_title: 'Advanced', due_at: past, days_late: 3 },
		]);
		expect(await overdueMembers(world.globex.id, group.id, { page: 1, perPage: 10 })).toEqual({ rows: [], total: 0 });
	});
});

// Last: its 2,000 membership events would crowd the event reads of the tests above.
describe('many members', () => {
	test('a change of members takes the 1,000 ids SPEC §20 allows, real ids, in one request each way; 1,001 is a 400, not a 413', async () => {
		const group = await newGroup();
		const people = await User.bulkCreate(
			Array.from({ length: 1001 }, (_, i) => ({ organizationId: world.acme.id, name: `Thousand ${i}`, email: `thousand${i}@acme.example`, role: 'student' as const, passwordHash: null })),
		);
		const ids = people.map((u) => u.id);
		expectProblem(await api(`/groups/${group.id}/members`, 'POST', { user_ids: ids }), 400, 'invalid_request');
		const added = await api(`/groups/${group.id}/members`, 'POST', { user_ids: ids.slice(0, 1000) });
		expect(added.status).toBe(200);
		expect(added.body.added).toHaveLength(1000);
		expect((await api(`/groups/${group.id}`)).body.member_count).toBe(1000);
		const removed = await api(`/groups/${group.id}/members/remove`, 'POST', { user_ids: ids.slice(0, 1000) });
		expect(removed.status).toBe(200);
		expect(removed.body.removed).toHaveLength(1000);
		expect((await api(`/groups/${group.id}`)).body.member_count).toBe(0);
	});
});
