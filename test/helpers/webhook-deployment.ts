import { runCli } from './cli';

/**
 * A demo deployment ready for webhook tests across processes: migrated, seeded, one key with
 * every scope. Events come from real changes through the API (each new enrollment emits
 * `enrollment.created`).
 */
export async function prepareDeployment(databaseUrl: string): Promise<{ key: string }> {
	const cli = async (...args: string[]) => {
		const result = await runCli(args, { env: { DATABASE_URL: databaseUrl } });
		if (result.code !== 0) throw new Error(`lms-server ${args.join(' ')} failed (${result.code}): ${result.stderr}`);
		return result.stdout;
	};
	await cli('migrate');
	await cli('seed', '--demo', '--json');
	const scopes = 'read:users,read:courses,read:enrollments,write:enrollments,manage:webhooks';
	const { key } = JSON.parse(await cli('keys', 'create', '--org', 'acme', '--label', 'webhooks', '--scopes', scopes, '--json')) as { key: string };
	return { key };
}

export async function api(baseUrl: string, key: string, path: string, init: { method?: string; body?: unknown } = {}) {
	const res = await fetch(`${baseUrl}${path}`, {
		method: init.method ?? 'GET',
		headers: { authorization: `Bearer ${key}`, ...(init.body === undefined ? {} : { 'content-type': 'application/json' }) },
		body: init.body === undefined ? undefined : JSON.stringify(init.body),
	});
	const text = await res.text();
	 
	return { status: res.status, body: (text ? JSON.parse(text) : undefined) };
}

/** Every (student, published course) pair of acme that is not enrolled yet, as the API lists them. */
export async function freePairs(baseUrl: string, key: string): Promise<Array<{ student_id: string; course_id: string }>> {
	const students = (await api(baseUrl, key, '/api/v1/users?role=student&per_page=100')).body.data as Array<{ id: string }>;
	const courses = (await api(baseUrl, key, '/api/v1/courses?per_page=100')).body.data as Array<{ id: string }>;
	const taken = new Set<string>();
	for (let page = 1; ; page++) {
		const { body } = await api(baseUrl, key, `/api/v1/enrollments?per_page=100&page=${page}`);
		for (const e of body.data as Array<{ student_id: string; course_id: string }>) taken.add(`${e.student_id} ${e.course_id}`);
		if (page * 100 >= body.pagination.total) break;
	}
	return students.flatMap((s) => courses.map((c) => ({ student_id: s.id, course_id: c.id }))).filter((p) => !taken.has(`${p.student_id} ${p.course_id}`));
}

/**
 * One free (student, course) pair of acme, read now rather than from a list made earlier: what
 * else a test runs (the demo activity rounds) enrolls people too.
 */
export async function freePair(
	baseUrl: string,
	key: string,
	wanted: (pair: { student_id: string; course_id: string }) => boolean = () => true,
): Promise<{ student_id: string; course_id: string }> {
	const pair = (await freePairs(baseUrl, key)).find(wanted);
	if (pair === undefined) throw new Error('no free student and course pair left in the demo data');
	return pair;
}
