import type { IDataObject, IPollFunctions } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { eventItem, type LmsEvent } from '../../shared/event-item';
import { pollDeadline } from '../../shared/polling';
import { lmsApiPages, lmsApiRequest, lmsProblemOf, MAX_PER_PAGE } from '../../shared/transport';
import { isFeedEvent, type FeedEventType } from './events';
import { pollDueSoon, sampleDueSoon, type DueSoonSettings } from './due-soon';
import { DAY_MS, ExpiringSchedule, expiresAtOf, expiringItem, type ExpiringSettings } from './expiring';
import type { TriggerState } from './state';

/** The feed's largest page. */
const EVENTS_PER_PAGE = 100;
/**
 * At most this many feed pages per poll (10,000 events): a long catch-up or a first walk through
 * a busy feed is spread over several polls rather than holding the 100-per-minute limit that
 * every client behind this IP shares. The next poll carries on from where this one stopped.
 */
const MAX_PAGES_PER_POLL = 100;
/**
 * The LMS keeps events at least 30 days. A cursor on an event of a rare type can grow old while
 * other events go by; past this age it is moved to the newest event of any type, so the LMS
 * never drops it (a 410 would follow).
 */
export const REFRESH_AFTER_MS = 7 * DAY_MS;

export interface TriggerSettings {
	/** The feed events chosen. */
	events: FeedEventType[];
	/** Set when Certificate Expiring is chosen. */
	expiring?: ExpiringSettings;
	/** Set when Enrollment Due Soon is chosen. */
	dueSoon?: DueSoonSettings;
	courseId?: string;
	role?: string;
}

export interface PollResult {
	items: IDataObject[];
	state: TriggerState;
	/** Requests made (for tests and logs). */
	requests: number;
}

/** The types asked of the feed: the chosen ones, and certificate.issued for Certificate Expiring. */
function feedTypes(settings: TriggerSettings): string[] {
	const types = new Set<string>(settings.events);
	if (settings.expiring) types.add('certificate.issued');
	return [...types].sort();
}

function courseMatches(settings: TriggerSettings, object: IDataObject): boolean {
	return !settings.courseId || object.course_id === settings.courseId;
}

/** Whether an event of a chosen type passes the filters (course for enrollments and certificates, role for users; none for groups). */
function wanted(settings: TriggerSettings, event: LmsEvent): boolean {
	const object = event.data?.object ?? {};
	if (event.type?.startsWith('user.')) return !settings.role || object.role === settings.role;
	if (event.type?.startsWith('group.')) return true;
	return courseMatches(settings, object);
}

interface FeedPage {
	data: LmsEvent[];
	has_more: boolean;
}

/** The 410 of a cursor the LMS no longer keeps, turned into what to do. */
function expiredCursor(context: IPollFunctions, error: unknown, state: TriggerState): NodeApiError | undefined {
	if (lmsProblemOf(error)?.code !== 'cursor_expired') return undefined;
	const last = state.afterAt !== undefined ? new Date(state.afterAt).toISOString() : 'an unknown time';
	const apiError = error as NodeApiError;
	apiError.message = `The LMS no longer keeps the events after the last one this trigger read (${last}): events since then may not have started the workflow. The trigger starts again from now at its next poll; to find what was missed, list the records with the LMS Enrollments, LMS Certificates or LMS Users node`;
	context.logger.warn(`LMS Trigger: cursor ${state.after ?? ''} expired in the LMS; starting again from now`);
	return apiError;
}

/**
 * One poll of version 2. Reads the feed from the cursor (only the chosen types, 100 a page,
 * while has_more), or, at `activation` (no stored state), only the feed's head; then, for
 * Certificate Expiring, the certificates list when the schedule needs it. Works on `state`, a
 * copy: the caller stores it only if this returns.
 */
export async function pollEvents(
	context: IPollFunctions,
	settings: TriggerSettings,
	state: TriggerState,
	now: number,
	activation = false,
): Promise<PollResult> {
	const deadline = pollDeadline(context);
	let requests = 0;
	let slowest = 0;
	const outOfTime = () => deadline !== undefined && Date.now() + slowest >= deadline;
	const items: IDataObject[] = [];
	const schedule = settings.expiring ? new ExpiringSchedule(state, settings.expiring, now) : undefined;
	const chosen = new Set<string>(settings.events);
	const types = feedTypes(settings);

	const take = (event: LmsEvent) => {
		// A state from before the feed had a head (version 0.1 of this node) started at the first
		// walk through the whole feed: events stamped before its first poll are from before activation.
		if (!state.fromHead && !(Date.parse(event.created_at ?? '') >= state.since)) return;
		if (event.type && chosen.has(event.type) && wanted(settings, event)) items.push(eventItem(event));
		const object = event.data?.object;
		if (schedule && event.type === 'certificate.issued' && object && courseMatches(settings, object)) schedule.issued(object);
	};

	/** Reads pages after the cursor, handing each event to take(); true once the end was reached. */
	const walk = async (typeFilter: string[] | undefined): Promise<boolean> => {
		for (let pages = 0; ; pages++) {
			if (pages > 0 && (pages >= MAX_PAGES_PER_POLL || outOfTime())) return false;
			const qs: IDataObject = { limit: EVENTS_PER_PAGE };
			if (typeFilter) qs.type = typeFilter.join(',');
			if (state.after) qs.after = state.after;
			const started = Date.now();
			let page: FeedPage;
			try {
				page = (await lmsApiRequest.call(context, { method: 'GET', endpoint: '/events', qs })) as unknown as FeedPage;
			} catch (error) {
				throw expiredCursor(context, error, state) ?? error;
			}
			requests++;
			slowest = Math.max(slowest, Date.now() - started);
			if (!Array.isArray(page?.data) || typeof page.has_more !== 'boolean') {
				throw new NodeOperationError(context.getNode(), 'The answer from /events is not the LMS event feed: check the Base URL in the credential (the LMS must offer GET /api/v1/events)');
			}
			for (const event of page.data) {
				// Types outside the filter come only from an unfiltered refresh: skip them.
				if (event.type && types.includes(event.type)) take(event);
			}
			const last = page.data[page.data.length - 1];
			if (last?.id) {
				state.after = last.id;
				state.afterAt = Date.parse(last.created_at ?? '') || now;
			}
			if (!page.has_more) return true;
		}
	};

	/**
	 * Activation: one request for the feed's head (SPEC §19), the newest event this key can see;
	 * every event after it is new, every event up to it is from before. The position is the
	 * LMS's own, so neither a long retained feed nor a difference between n8n's clock and the
	 * LMS's matters. A null head (nothing to see yet) reads the feed from its oldest event on.
	 */
	const startAtHead = async (): Promise<void> => {
		const head = (await lmsApiRequest.call(context, { method: 'GET', endpoint: '/events/head' })) as { after?: unknown };
		requests++;
		if (!head || (typeof head.after !== 'string' && head.after !== null)) {
			throw new NodeOperationError(context.getNode(), 'The answer from /events/head is not the LMS event feed\'s head: check the Base URL in the credential (the LMS must offer GET /api/v1/events/head)');
		}
		if (typeof head.after === 'string') state.after = head.after;
		// When the cursor was last known fresh: the head is the newest event there is.
		state.afterAt = now;
		state.fromHead = true;
	};

	// Enrollment Due Soon alone reads no feed: only the enrollments list.
	let caughtUp = true;
	if (types.length > 0) {
		if (activation) await startAtHead();
		else caughtUp = await walk(types);
	}
	// A cursor on an old event (nothing of the chosen types for a week): move it to the newest
	// event of any type before the LMS's retention (≥ 30 days) drops it.
	const lastRefresh = Math.max(state.afterAt ?? 0, state.checkedAt ?? 0);
	if (caughtUp && state.after && now - lastRefresh > REFRESH_AFTER_MS) {
		caughtUp = await walk(undefined);
		if (caughtUp) state.checkedAt = now;
	}

	let expiring: IDataObject[] = [];
	if (schedule) {
		// Only once the feed is read to its end: every certificate the list shows was then issued
		// before the feed's end or is found by its event, so `recent` needs to cover a short gap only.
		if (caughtUp && schedule.needsList()) {
			const window = schedule.listWindow();
			const certificates: IDataObject[] = [];
			const qs: IDataObject = {
				expires_after: new Date(window.from).toISOString(),
				// Exclusive in the API; one millisecond past includes `to` itself.
				expires_before: new Date(window.to + 1).toISOString(),
			};
			if (settings.expiring!.courseId) qs.course_id = settings.expiring!.courseId;
			for await (const page of lmsApiPages.call(context, '/certificates', { qs, perPage: MAX_PER_PAGE })) {
				requests++;
				certificates.push(...page.data);
			}
			schedule.listed(certificates, window);
		}
		expiring = schedule.finish();
	}
	let dueSoon: IDataObject[] = [];
	if (settings.dueSoon) {
		const result = await pollDueSoon(context, settings.dueSoon, state.dueSoon, now);
		requests += result.requests;
		state.dueSoon = result.state;
		dueSoon = result.items;
	}
	return { items: [...items, ...expiring, ...dueSoon], state, requests };
}

/**
 * "Fetch Test Event": one sample, and no state touched. The latest event this trigger read when
 * it has one, else the oldest event of the chosen types the LMS keeps; for Certificate Expiring
 * alone, the certificate that expires next.
 */
export async function sampleEvent(
	context: IPollFunctions,
	settings: TriggerSettings,
	state: TriggerState | undefined,
	now: number,
): Promise<IDataObject[]> {
	if (settings.events.length > 0) {
		if (state?.after) {
			const event = (await lmsApiRequest.call(context, { method: 'GET', endpoint: `/events/${encodeURIComponent(state.after)}` })) as LmsEvent;
			if (event.type && isFeedEvent(event.type) && settings.events.includes(event.type)) return [eventItem(event)];
		}
		const qs: IDataObject = { limit: 1, type: settings.events.join(',') };
		const page = (await lmsApiRequest.call(context, { method: 'GET', endpoint: '/events', qs })) as unknown as FeedPage;
		if (Array.isArray(page?.data) && page.data.length > 0) return [eventItem(page.data[0])];
	}
	if (settings.expiring) {
		const qs: IDataObject = { expires_after: new Date(now).toISOString(), per_page: 1, page: 1 };
		if (settings.expiring.courseId) qs.course_id = settings.expiring.courseId;
		const list = (await lmsApiRequest.call(context, { method: 'GET', endpoint: '/certificates', qs })) as { data?: IDataObject[] };
		const certificate = list.data?.[0];
		const expiresAt = certificate && expiresAtOf(certificate);
		if (certificate && expiresAt !== undefined && typeof certificate.id === 'string') {
			const entry = { id: certificate.id, expiresAt, dueAt: expiresAt - settings.expiring.days * DAY_MS, issuedAt: 0, certificate };
			return [expiringItem(entry, now)];
		}
	}
	if (settings.dueSoon) return await sampleDueSoon(context, settings.dueSoon, now);
	return [];
}
