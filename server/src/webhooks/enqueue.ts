import type { Transaction } from 'sequelize';

import { scopeList } from '../api-keys/model';
import { newId } from '../common/ids';
import { database } from '../db';
import { wakeDeliveryWorkers } from './wake';
import { deliverable } from './event-types';
import { insertDeliveries } from './queries';

interface EnqueuedEvent {
	id: string;
	organizationId: string;
	type: string;
	at: Date;
}

/** Deliveries per INSERT: a batch of events times its endpoints can be many rows; this keeps each statement a bounded size. */
const ROWS_PER_INSERT = 1000;

export interface Subscriber {
	id: string;
	organization_id: string;
	events: string;
	api_key_id: string | null;
	/** The owner key's scopes, null when the endpoint has no owner key (older than owners). */
	scopes: string | null;
	key_status: string | null;
}

/**
 * Called by events/record.ts in the transaction that writes the events, with the enabled
 * endpoints of their organizations (read by the events' INSERT, webhooks/queries.ts
 * subscribersOf): for each event, one delivery per endpoint of its organization that is sent the
 * event's type: it subscribes to it and its key's scopes can read it (SPEC §19). Because the
 * deliveries commit with the event (or roll back with it), no committed event can be missed and
 * no delivery can exist for a change that never happened; no cursor, no hold-back needed. An
 * endpoint receives every event whose transaction writes it after the endpoint's creation
 * committed. The worker checks the key's scopes again before sending: they are the scopes as they
 * are at send time that count.
 */
export async function enqueueDeliveries(transaction: Transaction, events: readonly EnqueuedEvent[], endpoints: readonly Subscriber[]): Promise<void> {
	if (endpoints.length === 0) return;
	// The filter depends on the organization and the type only: once per pair.
	const sentTo = new Map<string, Subscriber[]>();
	const endpointsFor = (organizationId: string, type: string) => {
		const pair = `${organizationId} ${type}`;
		if (!sentTo.has(pair)) sentTo.set(pair, wanted(endpoints.filter((e) => e.organization_id === organizationId), type));
		return sentTo.get(pair)!;
	};
	const rows = events.flatMap((event) =>
		endpointsFor(event.organizationId, event.type).map((endpoint) => [newId('whd'), event.organizationId, endpoint.id, event.id, event.type, event.at.toISOString()]),
	);
	if (rows.length === 0) return;
	const db = database();
	const now = new Date().toISOString();
	for (let from = 0; from < rows.length; from += ROWS_PER_INSERT) {
		await db.run(insertDeliveries(db), [JSON.stringify(rows.slice(from, from + ROWS_PER_INSERT)), now], transaction);
	}
	// This process's workers start at once; other instances find the rows at their next poll.
	transaction.afterCommit(() => wakeDeliveryWorkers());
}

/** The endpoints among the organization's that are sent an event of `type`. */
function wanted(endpoints: readonly Subscriber[], type: string): Subscriber[] {
	return endpoints.filter((e) => {
		// A key that is no longer active owns no enabled endpoint (revoked: disabled; rotated: handed on).
		if (e.api_key_id === null) return deliverable(e.events.split(' '), null, type);
		if (e.key_status !== 'active' || e.scopes === null) return false;
		return deliverable(e.events.split(' '), scopeList(e.scopes), type);
	});
}
