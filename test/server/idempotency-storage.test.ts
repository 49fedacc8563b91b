import { Op } from 'sequelize';

import { Enrollment, IdempotencyKey } from '../../server/src/db';
import type { TestServer } from '../helpers/server';
import { call, startApiServer, type World, newStudents as newStudentsOf } from './api-fixtures';

/**
 * Issue 39 L3: what an Idempotency-Key keeps is bounded by what the requests changed. A batch
 * that changed nothing (every item refused, or every item found as it was with if_exists=return)
 * keeps no answer: its retry runs again and answers the same. A kept long answer is stored
 * compressed, and replayed byte for byte.
 */

let server: TestServer;
let world: World;
beforeAll(async () => ({ server, world } = await startApiServer()));
afterAll(() => server.stop());

const newStudents = (count: number) => newStudentsOf(world, 'Kept', count);
const newKey = () => `kept-${Date.now()}-${Math.random().toString(36).slice(2)}`;
const postBatch = (body: unknown, key: string) =>
	call(server, '/api/v1/enrollments/batch', { method: 'POST', key: world.keys.writeEnrollments, body, headers: { 'idempotency-key': key } });
const kept = (key: string) => IdempotencyKey.findOne({ where: { organizationId: world.acme.id, key } });

test('a batch of 100 refused items keeps nothing; its retry runs again with the same answer', async () => {
	const items = Array.from({ length: 100 }, (_, i) => ({ student_id: `usr_nobody${i}`, course_id: world.courses.intro.id }));
	const key = newKey();
	const first = await postBatch({ items }, key);
	expect(first.status).toBe(200);
	expect(first.body.data.every((d: { status: number }) => d.status === 422)).toBe(true);
	expect(await kept(key)).toBeNull();
	const again = await postBatch({ items }, key);
	expect(again.status).toBe(200);
	expect(again.headers.get('idempotent-replayed')).toBeNull();
	const codes = (reply: typeof first) => reply.body.data.map((d: { status: number; body: { code: string } }) => [d.status, d.body.code]);
	expect(codes(again)).toEqual(codes(first));
	expect(await kept(key)).toBeNull();
});

test('a re-run with if_exists=return that finds every enrollment as it was keeps nothing; one that creates is kept, compressed, replayed byte for byte', async () => {
	const students = await newStudents(100);
	const items = students.map((s) => ({ student_id: s.id, course_id: world.courses.advanced.id }));
	const firstKey = newKey();
	const first = await postBatch({ items, if_exists: 'return' }, firstKey);
	expect(first.body.data.every((d: { status: number }) => d.status === 201)).toBe(true);
	const row = await kept(firstKey);
	expect(row).not.toBeNull();
	// About 40 KB of JSON, kept in a fraction of it.
	expect(first.text.length).toBeGreaterThan(20_000);
	expect(row!.responseBody!.length).toBeLessThan(first.text.length / 3);
	const replay = await postBatch({ items, if_exists: 'return' }, firstKey);
	expect(replay.headers.get('idempotent-replayed')).toBe('true');
	expect(replay.text).toBe(first.text);

	// The next execution re-runs the same items under its own key: all found, nothing changed, nothing kept.
	const rerunKey = newKey();
	const rerun = await postBatch({ items, if_exists: 'return' }, rerunKey);
	expect(rerun.body.data.every((d: { status: number }) => d.status === 200)).toBe(true);
	expect(await kept(rerunKey)).toBeNull();
	expect(await Enrollment.count({ where: { studentId: { [Op.in]: students.map((s) => s.id) } } })).toBe(100);

	// One item that creates makes the batch's answer worth keeping again.
	const [late] = await newStudents(1);
	const mixedKey = newKey();
	const mixed = await postBatch({ items: [...items.slice(1), { student_id: late.id, course_id: world.courses.advanced.id }], if_exists: 'return' }, mixedKey);
	expect(mixed.body.data.at(-1).status).toBe(201);
	expect(await kept(mixedKey)).not.toBeNull();
	expect((await postBatch({ items: [...items.slice(1), { student_id: late.id, course_id: world.courses.advanced.id }], if_exists: 'return' }, mixedKey)).text).toBe(mixed.text);
});
