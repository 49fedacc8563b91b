import type { IDataObject, IPollFunctions } from 'n8n-workflow';

import { eventItem } from '../../shared/event-item';
import { lmsApiPages, lmsApiRequest, MAX_PER_PAGE } from '../../shared/transport';
import { ENROLLMENT_DUE_SOON } from './events';
import { DAY_MS } from './expiring';

/**
 * Enrollment Due Soon (SPEC §17): N days before an active enrollment's `due_at`, once per
 * enrollment and deadline. The LMS has no such event (a moment that depends on each trigger's N
 * is the trigger's to find), so, like Certificate Expiring, the trigger makes it, here from the
 * enrollments list rather than a schedule: a deadline can be set, moved or cleared by a PATCH
 * that changes nothing else and emits no event, so only the list tells where the deadlines are.
 *
 * - Each poll lists the active enrollments due in (now, now + N days] (the "window"), and emits
 *   those it did not see there at the previous poll with the same `due_at`: deadlines the clock
 *   brought into the window, enrollments created or reactivated inside it, deadlines moved into
 *   it or within it (a moved deadline is a new one: it fires again).
 * - The first poll (activation) only records the window: enrollments already due within N days
 *   were "due soon" before the workflow was on, as with Certificate Expiring.
 * - Memory is bounded: the window's ids and deadlines, at most MAX_WINDOW. A larger window (a
 *   deadline shared by thousands) switches to reading only (previous upper bound, now + N], what
 *   the clock brings in: one request a poll while no deadline enters, no memory; a deadline
 *   moved to inside the window then is not seen until it is moved again. Docs say so.
 */

/** The most enrollments remembered (and pages read each poll, ÷ 100) before the trigger reads only what the clock brings in. */
export const MAX_WINDOW = 1_000;

export interface DueSoonSettings {
	days: number;
	courseId?: string;
}

export interface DueSoonState {
	/** now + N days at the previous poll (ms): every deadline up to it was looked at. */
	upper: number;
	/** The window at the previous poll: enrollment id → due_at (ms). Empty in `wide` mode. */
	seen: Record<string, number>;
	/** The window held more than MAX_WINDOW: only what enters past `upper` is read. */
	wide?: boolean;
}

export function isDueSoonState(value: unknown): value is DueSoonState {
	if (!value || typeof value !== 'object') return false;
	const state = value as Partial<DueSoonState>;
	return typeof state.upper === 'number' && Number.isFinite(state.upper) && typeof state.seen === 'object' && state.seen !== null;
}

function dueAtOf(enrollment: IDataObject): number | undefined {
	const ms = typeof enrollment.due_at === 'string' ? Date.parse(enrollment.due_at) : NaN;
	return Number.isFinite(ms) && typeof enrollment.id === 'string' ? ms : undefined;
}

/** The item: the enrollment as the list gives it, as for the feed's events, plus days_left. */
function dueSoonItem(enrollment: IDataObject, days: number, now: number): IDataObject {
	const dueAt = dueAtOf(enrollment) ?? now;
	return {
		...eventItem({ type: ENROLLMENT_DUE_SOON, created_at: new Date(Math.min(now, dueAt - days * DAY_MS)).toISOString(), data: { object: enrollment } }),
		// No feed event behind it: no event id.
		event_id: null,
		days_left: Math.max(0, Math.ceil((dueAt - now) / DAY_MS)),
	};
}

function windowQuery(settings: DueSoonSettings, from: number, to: number): IDataObject {
	// Both bounds are exclusive in the API; one millisecond past includes `to` itself.
	const qs: IDataObject = { status: 'active', due_after: new Date(from).toISOString(), due_before: new Date(to + 1).toISOString() };
	if (settings.courseId) qs.course_id = settings.courseId;
	return qs;
}

interface WindowRead {
	enrollments: IDataObject[];
	/** The window holds more than MAX_WINDOW (only its first page was read). */
	tooWide: boolean;
	requests: number;
}

async function readWindow(context: IPollFunctions, qs: IDataObject, bounded: boolean): Promise<WindowRead> {
	const enrollments: IDataObject[] = [];
	let requests = 0;
	for await (const page of lmsApiPages.call(context, '/enrollments', { qs, perPage: MAX_PER_PAGE })) {
		requests++;
		if (bounded && (page.pagination?.total ?? 0) > MAX_WINDOW) return { enrollments: [], tooWide: true, requests };
		enrollments.push(...page.data);
	}
	return { enrollments, tooWide: false, requests };
}

/**
 * One poll's Enrollment Due Soon items, soonest deadline first, and the state to keep. `previous`
 * undefined: this poll is the activation (nothing is emitted). Throws on any failed request; the
 * caller then keeps the stored state, so the next poll looks at the same again.
 */
export async function pollDueSoon(
	context: IPollFunctions,
	settings: DueSoonSettings,
	previous: DueSoonState | undefined,
	now: number,
): Promise<{ items: IDataObject[]; state: DueSoonState; requests: number }> {
	const upper = now + settings.days * DAY_MS;
	let requests = 0;
	let fresh: IDataObject[] = [];
	let state: DueSoonState;

	let read: WindowRead | undefined;
	if (!previous?.wide) {
		read = await readWindow(context, windowQuery(settings, now, upper), true);
		requests += read.requests;
	}
	if (read && !read.tooWide) {
		const seen: Record<string, number> = {};
		for (const enrollment of read.enrollments) {
			const dueAt = dueAtOf(enrollment);
			if (dueAt === undefined) continue;
			if (previous && previous.seen[enrollment.id as string] !== dueAt) fresh.push(enrollment);
			seen[enrollment.id as string] = dueAt;
		}
		state = { upper, seen };
	} else {
		// Wide: what the clock brought in since the previous poll (at activation: nothing to emit).
		if (previous) {
			const entered = await readWindow(context, windowQuery(settings, Math.max(previous.upper, now), upper), false);
			requests += entered.requests;
			fresh = entered.enrollments.filter((enrollment) => dueAtOf(enrollment) !== undefined);
		}
		state = { upper, seen: {}, wide: true };
	}
	fresh.sort((a, b) => dueAtOf(a)! - dueAtOf(b)! || (String(a.id) < String(b.id) ? -1 : 1));
	return { items: fresh.map((enrollment) => dueSoonItem(enrollment, settings.days, now)), state, requests };
}

/** "Fetch Test Event": an active enrollment due within the window (else any later one), no state touched. */
export async function sampleDueSoon(context: IPollFunctions, settings: DueSoonSettings, now: number): Promise<IDataObject[]> {
	const inWindow = windowQuery(settings, now, now + settings.days * DAY_MS);
	const later: IDataObject = { ...inWindow };
	delete later.due_before;
	for (const qs of [inWindow, later]) {
		const list = (await lmsApiRequest.call(context, { method: 'GET', endpoint: '/enrollments', qs: { ...qs, per_page: 1, page: 1 } })) as { data?: IDataObject[] };
		const enrollment = list.data?.[0];
		if (enrollment && dueAtOf(enrollment) !== undefined) return [dueSoonItem(enrollment, settings.days, now)];
	}
	return [];
}
