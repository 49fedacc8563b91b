import { Course, Enrollment, User } from '../../server/src/db';
import { findOrganization } from '../../server/src/organizations/service';
import { runCli } from '../helpers/cli';
import { startTestServer, type TestServer } from '../helpers/server';
import { waitUntil } from '../helpers/wait';

/**
 * `lms-server groups …` and `assignments …` (SPEC §20): the API's domain operations from the
 * console, next to a running server that applies the assignment in the background.
 */
let server: TestServer;
const cli = (...args: string[]) => runCli(args, { env: { DATABASE_URL: server.databaseUrl } });
const json = async (...args: string[]) => {
	const result = await cli(...args, '--json');
	expect(result).toMatchObject({ code: 0, stderr: '' });
	return JSON.parse(result.stdout);
};

beforeAll(async () => {
	server = await startTestServer();
});
afterAll(() => server.stop());

test('create a group, add and remove members, assign a course, list, end it', async () => {
	const acme = await findOrganization('acme');
	const [student] = await User.findAll({ where: { organizationId: acme.id, role: 'student', status: 'active' }, order: [['id', 'ASC']], limit: 1 });
	const course = await Course.create({ organizationId: acme.id, title: 'CLI Safety', description: '', status: 'published', publishedAt: new Date() });

	const group = await json('groups', 'create', '--org', 'acme', '--name', 'Night Shift', '--external-id', 'nights');
	expect(group).toMatchObject({ id: expect.stringMatching(/^grp_/), name: 'Night Shift', external_id: 'nights', member_count: 0 });

	const assignment = await json('assignments', 'create', '--org', 'acme', '--group', 'night shift', '--course', course.id, '--due-in-days', '14', '--on-removal', 'withdraw');
	expect(assignment).toMatchObject({ group_id: group.id, course_id: course.id, due_in_days: 14, on_removal: 'withdraw' });
	await waitUntil(async () => (await json('assignments', 'list', '--org', 'acme', '--group', group.id))[0]?.applied_at, { what: 'the assignment applied by the running server' });

	expect(await json('groups', 'add-members', '--org', 'acme', group.id, student.id)).toEqual({ added: [student.id], unchanged: [] });
	// The join enrolled them, in the same transaction.
	const enrollment = await Enrollment.findOne({ where: { studentId: student.id, courseId: course.id } });
	expect(enrollment).toMatchObject({ assignmentId: assignment.id, status: 'active' });
	expect((await cli('groups', 'add-members', '--org', 'acme', group.id, student.id)).stdout).toMatch(/added 0, unchanged 1/);
	expect((await json('groups', 'list', '--org', 'acme')).map((g: { id: string }) => g.id)).toContain(group.id);

	const unknown = await cli('groups', 'add-members', '--org', 'acme', group.id, 'usr_nobody');
	expect(unknown.code).not.toBe(0);
	expect(unknown.stderr).toContain('usr_nobody');

	expect(await json('groups', 'remove-members', '--org', 'acme', 'Night Shift', student.id)).toEqual({ removed: [student.id], unchanged: [] });
	await enrollment!.reload();
	expect(enrollment!.status).toBe('withdrawn');

	expect((await cli('assignments', 'delete', '--org', 'acme', assignment.id)).stdout).toMatch(/Ended assignment/);
	expect((await cli('assignments', 'list', '--org', 'acme', '--group', group.id)).stdout).toMatch(/No assignments/);
});
