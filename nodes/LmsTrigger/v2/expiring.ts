import type { IDataObject } from 'n8n-workflow';

import { eventItem } from '../../shared/event-item';
import { CERTIFICATE_EXPIRING } from './events';
import type { DueCertificate, TriggerState } from './state';

/**
 * Certificate Expiring: the rules, pure functions on the state (state.ts); the poller (poll.ts)
 * does the requests. There is no such event in the feed, so the trigger makes one per
 * certificate, at expires_at − N days:
 *
 * - Certificates that exist before the horizon moves over them come from the certificates list
 *   (`expires_after` = horizon, `expires_before` = a day past now + N), read only when now + N
 *   reaches the horizon: about once a day, so most polls need no request for this event.
 * - Certificates issued later with expires_at ≤ horizon (issued with less than N days left, or
 *   inside the day already read) will never be in a list window; their certificate.issued event
 *   in the feed brings them.
 * - A certificate can reach both ways only if the list saw it before the feed served its event
 *   (the event is a moment late). It is then in `due`, or in `recent` once emitted, and the
 *   event is ignored.
 */

export const DAY_MS = 24 * 3_600_000;
/** How far past now + N one list read schedules: one extra request a day. */
const LOOKAHEAD_MS = DAY_MS;
/** At most this many certificates wait in static data; beyond, the horizon is pulled back. */
const MAX_DUE = 200;
/** A certificate.issued event is served within this long of its certificate being listed. */
const RECENT_MS = DAY_MS;

export interface ExpiringSettings {
	days: number;
	courseId?: string;
}

/** A certificate's expires_at in ms, or undefined when it never expires (or is unreadable). */
export function expiresAtOf(certificate: IDataObject): number | undefined {
	if (typeof certificate.expires_at !== 'string') return undefined;
	const ms = Date.parse(certificate.expires_at);
	return Number.isFinite(ms) ? ms : undefined;
}

function dueOf(certificate: IDataObject, days: number): DueCertificate | undefined {
	const expiresAt = expiresAtOf(certificate);
	if (expiresAt === undefined || typeof certificate.id !== 'string') return undefined;
	const issuedAt = typeof certificate.issued_at === 'string' ? Date.parse(certificate.issued_at) : NaN;
	return {
		id: certificate.id,
		expiresAt,
		dueAt: expiresAt - days * DAY_MS,
		issuedAt: Number.isFinite(issuedAt) ? issuedAt : 0,
		certificate,
	};
}

/** The item for a certificate that is due: the certificate, as for the feed's events, plus days_left. */
export function expiringItem(entry: DueCertificate, now: number): IDataObject {
	return {
		...eventItem({
			type: CERTIFICATE_EXPIRING,
			created_at: new Date(entry.dueAt).toISOString(),
			data: { object: entry.certificate },
		}),
		// No feed event behind it: no event id.
		event_id: null,
		days_left: Math.max(0, Math.ceil((entry.expiresAt - now) / DAY_MS)),
	};
}

/** Collects what one poll emits for Certificate Expiring, on the poll's copy of the state. */
export class ExpiringSchedule {
	private readonly emitted: DueCertificate[] = [];

	constructor(
		private readonly state: TriggerState,
		private readonly settings: ExpiringSettings,
		private readonly now: number,
	) {
		state.due ??= [];
		state.recent ??= {};
		state.horizon ??= state.since + settings.days * DAY_MS;
	}

	private known(id: string): boolean {
		return this.state.recent![id] !== undefined || this.state.due!.some((entry) => entry.id === id) || this.emitted.some((entry) => entry.id === id);
	}

	private add(entry: DueCertificate): void {
		if (this.known(entry.id)) return;
		if (entry.dueAt <= this.now) this.emitted.push(entry);
		else this.state.due!.push(entry);
	}

	/** A certificate.issued event after activation. */
	issued(certificate: IDataObject): void {
		const entry = dueOf(certificate, this.settings.days);
		// Beyond the horizon: the list read that moves the horizon over it will find it.
		if (!entry || entry.expiresAt > this.state.horizon!) return;
		this.add(entry);
	}

	/** Whether the horizon is reached, so the certificates list must be read (listWindow). */
	needsList(): boolean {
		return this.state.horizon! <= this.now + this.settings.days * DAY_MS;
	}

	/** The list window to read: expires_at in (from, to], in ms. */
	listWindow(): { from: number; to: number } {
		return { from: this.state.horizon!, to: this.now + this.settings.days * DAY_MS + LOOKAHEAD_MS };
	}

	/** The certificates the list gave for `listWindow()`, all pages read. */
	listed(certificates: IDataObject[], window: { to: number }): void {
		for (const certificate of certificates) {
			const entry = dueOf(certificate, this.settings.days);
			if (entry && entry.expiresAt > this.state.horizon! && entry.expiresAt <= window.to) this.add(entry);
		}
		this.state.horizon = window.to;
	}

	/**
	 * Ends the poll: takes what is due, remembers it in `recent` while its event may still come,
	 * and bounds `due` by pulling the horizon back (what is dropped lies beyond the new horizon,
	 * so a later list read finds it again). Returns the items, soonest due first.
	 */
	finish(): IDataObject[] {
		const state = this.state;
		const due = state.due!.filter((entry) => entry.dueAt <= this.now);
		state.due = state.due!.filter((entry) => entry.dueAt > this.now).sort((a, b) => a.expiresAt - b.expiresAt);
		const taken = [...this.emitted, ...due].sort((a, b) => a.dueAt - b.dueAt || (a.id < b.id ? -1 : 1));

		for (const [id, until] of Object.entries(state.recent!)) if (until <= this.now) delete state.recent![id];
		for (const entry of taken) {
			const until = entry.issuedAt + RECENT_MS;
			if (until > this.now) state.recent![entry.id] = until;
		}

		if (state.due.length > MAX_DUE) {
			const cut = state.due[MAX_DUE - 1].expiresAt;
			state.due = state.due.filter((entry) => entry.expiresAt <= cut);
			state.horizon = cut;
		}
		return taken.map((entry) => expiringItem(entry, this.now));
	}
}
