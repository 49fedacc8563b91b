import type { IDataObject } from 'n8n-workflow';

import { isDueSoonState, type DueSoonState } from './due-soon';

/**
 * Version 2's memory between polls, in the workflow's static data. n8n saves static data only
 * when a poll emits items (a poll that emits nothing or fails is not saved; the in-memory copy
 * lives on until the workflow is deactivated or n8n restarts). So every saved state is the one a
 * poll with output left behind, and a restart resumes from it: what was read after it is read
 * again, and nothing after it was emitted. A poll works on a copy and replaces the state in one
 * assignment once every request succeeded.
 */

/** A certificate waiting for its Certificate Expiring moment. */
export interface DueCertificate {
	id: string;
	/** `expires_at` in ms. */
	expiresAt: number;
	/** When it is due: expires_at − Days Before Expiry, in ms. */
	dueAt: number;
	/** `issued_at` in ms (how long it stays in `recent` once emitted). */
	issuedAt: number;
	/** The certificate as the LMS returned it: what the item will hold. */
	certificate: IDataObject;
}

export interface TriggerState {
	version: 2;
	/** Events, filters, days, LMS and credential this state belongs to; any change starts afresh. */
	scope: string;
	/** The first poll's time (ms, n8n's clock): where Certificate Expiring's first horizon starts. */
	since: number;
	/**
	 * Set when the first poll took the feed's head (GET /events/head): every event after `after`
	 * is new. Absent in a state version 0.1 of the node left: its first poll walked the whole feed,
	 * so events stamped before `since` are from before activation and never emitted.
	 */
	fromHead?: true;
	/** The id of the last event read from the feed; absent while none was (read from the oldest). */
	after?: string;
	/** That event's created_at (ms): the cursor is refreshed before the LMS's retention drops it. */
	afterAt?: number;
	/** When a refresh last found no newer event of any type (ms): no refresh again for a week. */
	checkedAt?: number;
	/**
	 * Certificate Expiring only. Every certificate with expires_at ≤ horizon (ms) is either in
	 * `due`, already emitted, or was inside the window at activation (never emitted). Those beyond
	 * it are found by reading the certificates list when the horizon is reached.
	 */
	horizon?: number;
	/** Certificates with expires_at ≤ horizon that are not due yet, soonest first. */
	due?: DueCertificate[];
	/**
	 * Certificates emitted as expiring whose certificate.issued event may still be ahead in the
	 * feed (issued less than a day ago): id → until when to remember it (ms).
	 */
	recent?: Record<string, number>;
	/** Enrollment Due Soon only (due-soon.ts): the window seen at the previous poll. */
	dueSoon?: DueSoonState;
}

function isCount(value: unknown): value is number {
	return typeof value === 'number' && Number.isFinite(value);
}

/** The state stored by this version for this scope; anything else (v1's cursor, damage) is none. */
export function readState(staticData: IDataObject, scope: string): TriggerState | undefined {
	const state = staticData.state as Partial<TriggerState> | undefined;
	if (!state || typeof state !== 'object' || state.version !== 2 || state.scope !== scope) return undefined;
	if (!isCount(state.since)) return undefined;
	if (state.after !== undefined && (typeof state.after !== 'string' || !isCount(state.afterAt))) return undefined;
	if (state.horizon !== undefined && !isCount(state.horizon)) return undefined;
	if (state.checkedAt !== undefined && !isCount(state.checkedAt)) return undefined;
	if (state.fromHead !== undefined && state.fromHead !== true) return undefined;
	if (state.due !== undefined && !Array.isArray(state.due)) return undefined;
	if (state.recent !== undefined && (typeof state.recent !== 'object' || state.recent === null)) return undefined;
	if (state.dueSoon !== undefined && !isDueSoonState(state.dueSoon)) return undefined;
	return state as TriggerState;
}

/** A deep copy to work on: a failed poll must leave the stored state exactly as it was. */
export function copyState(state: TriggerState): TriggerState {
	return JSON.parse(JSON.stringify(state)) as TriggerState;
}

export function writeState(staticData: IDataObject, state: TriggerState): void {
	staticData.state = state as unknown as IDataObject;
}

/** Forget the state: the next poll starts a new baseline. */
export function clearState(staticData: IDataObject): void {
	delete staticData.state;
}
