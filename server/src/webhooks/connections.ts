import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';

import type { DeliveryTarget } from './url-policy';

/**
 * Kept connections (issue 40): one keep-alive Agent per destination, the URL's origin together
 * with the address the URL policy approved for it. Its sockets connect only to that address (the
 * Agent's `lookup` answers it, whatever the DNS says by now), so a kept socket can only ever carry
 * a request to an address the policy approved. Every send is checked first (worker.ts); when the
 * check approves another address for the origin (the DNS answer changed), or refuses it, the
 * origin's Agent is retired: its idle sockets are closed at once, the sends still on its other
 * sockets finish, and nothing new is sent through it.
 *
 * Bounds: at most MAX_SOCKETS per origin (the worker's POOL: a send never waits in an Agent's
 * queue, so one organization's hanging receivers never hold up another's on a shared host), at
 * most MAX_IDLE of them kept idle, each for IDLE_MS (under Node's default keepAliveTimeout of 5 s,
 * so we close an idle socket before a Node receiver does), and at most MAX_DESTINATIONS origins.
 */
const MAX_SOCKETS = 128;
const MAX_IDLE = 16;
const IDLE_MS = 4_000;
const MAX_DESTINATIONS = 500;

interface Destination {
	address: string;
	agent: http.Agent;
	/** Sends in flight through it. */
	active: number;
	retired: boolean;
}

const destinations = new Map<string, Destination>();

function agentFor(target: DeliveryTarget): http.Agent {
	const pinned: LookupFunction = (_hostname, options, callback) => {
		if ((options as { all?: boolean }).all) {
			(callback as unknown as (err: null, addresses: Array<{ address: string; family: number }>) => void)(null, [
				{ address: target.address, family: target.family },
			]);
		} else {
			callback(null, target.address, target.family);
		}
	};
	const options = { keepAlive: true, maxSockets: MAX_SOCKETS, maxFreeSockets: MAX_IDLE, timeout: IDLE_MS, lookup: pinned, scheduling: 'lifo' as const };
	return target.url.protocol === 'https:' ? new https.Agent(options) : new http.Agent(options);
}

/** Closes the idle sockets now, and the Agent once its last send ends. */
function retire(origin: string, destination: Destination): void {
	if (destinations.get(origin) === destination) destinations.delete(origin);
	destination.retired = true;
	if (destination.active === 0) {
		destination.agent.destroy();
		return;
	}
	for (const sockets of Object.values(destination.agent.freeSockets)) for (const socket of sockets ?? []) socket.destroy();
}

/**
 * The Agent to send to a checked target through, counted as in use until `release` is called.
 * A new address for the origin retires the Agent of the old one.
 */
export function acquire(target: DeliveryTarget): { agent: http.Agent; release: () => void } {
	const origin = target.url.origin;
	let destination = destinations.get(origin);
	if (destination && destination.address !== target.address) retire(origin, destination);
	destination = destinations.get(origin);
	if (!destination) {
		destination = { address: target.address, agent: agentFor(target), active: 0, retired: false };
		destinations.set(origin, destination);
		evictIdle();
	} else {
		// Most recently used last: eviction takes the oldest first.
		destinations.delete(origin);
		destinations.set(origin, destination);
	}
	const used = destination;
	used.active += 1;
	return {
		agent: used.agent,
		release: () => {
			used.active -= 1;
			if (used.retired && used.active === 0) used.agent.destroy();
		},
	};
}

/** The URL's host was refused by the policy: its kept sockets go (the check runs before every send). */
export function dropConnections(url: string): void {
	let origin: string;
	try {
		origin = new URL(url).origin;
	} catch {
		return;
	}
	const destination = destinations.get(origin);
	if (destination) retire(origin, destination);
}

/** Keeps at most MAX_DESTINATIONS Agents: the least recently used ones with no send in flight go. */
function evictIdle(): void {
	if (destinations.size <= MAX_DESTINATIONS) return;
	for (const [origin, destination] of destinations) {
		if (destinations.size <= MAX_DESTINATIONS) return;
		if (destination.active === 0) retire(origin, destination);
	}
}
