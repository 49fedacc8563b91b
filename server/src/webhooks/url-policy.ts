import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';

import ipaddr from 'ipaddr.js';

import { RuleError } from '../common/rule-error';

/**
 * Where a webhook may point (SPEC §12). The LMS runs inside someone's network: a URL must not
 * turn it into a proxy towards the cloud metadata service (169.254.169.254) or internal
 * services. Checked when an endpoint is created and again before every delivery, and the
 * delivery connects to the very address checked here, so a DNS answer that changes in between
 * (DNS rebinding) cannot move it somewhere else.
 */

export class WebhookUrlError extends RuleError {
	constructor(message: string) {
		super('invalid_webhook_url', message);
		this.name = 'WebhookUrlError';
	}
}

/** Ranges refused even with WEBHOOK_ALLOW_PRIVATE=true: link-local (metadata), unspecified, and everything that is not one host. */
const NEVER = ['unspecified', 'linkLocal', 'multicast', 'broadcast', 'reserved', 'rfc6145', 'rfc6052', '6to4', 'teredo'];
/** Ranges a private deployment (the demo, the tests, n8n on the same host) may allow. */
const PRIVATE = ['private', 'loopback', 'uniqueLocal', 'carrierGradeNat'];
/** Special-purpose blocks that ipaddr.js 1.x files as "unicast" but are no public host. */
const NOT_PUBLIC_V4 = ['0.0.0.0/8', '192.0.0.0/24', '192.0.2.0/24', '198.18.0.0/15', '198.51.100.0/24', '203.0.113.0/24'].map((c) =>
	ipaddr.IPv4.parseCIDR(c),
);
// ::/96 is the deprecated IPv4-compatible form (::a9fe:a9fe would otherwise pass as "unicast").
const NOT_PUBLIC_V6 = ['::/96', '100::/64', '2001:db8::/32'].map((c) => ipaddr.IPv6.parseCIDR(c));

export type AddressVerdict = 'public' | 'private' | 'forbidden';

/** What kind of address this is; an IPv4-mapped IPv6 address is judged as the IPv4 it carries. */
export function classifyAddress(address: string): AddressVerdict {
	if (!ipaddr.isValid(address)) return 'forbidden';
	const parsed = ipaddr.process(address);
	const range = parsed.range();
	if (NEVER.includes(range)) return 'forbidden';
	if (PRIVATE.includes(range)) return 'private';
	if (range === 'ipv4Mapped') return 'forbidden'; // process() already unwrapped the valid ones
	if (parsed.kind() === 'ipv4' && NOT_PUBLIC_V4.some((cidr) => (parsed as ipaddr.IPv4).match(cidr))) return 'forbidden';
	if (parsed.kind() === 'ipv6' && NOT_PUBLIC_V6.some((cidr) => (parsed as ipaddr.IPv6).match(cidr))) return 'forbidden';
	return range === 'unicast' ? 'public' : 'forbidden';
}

export interface DeliveryTarget {
	url: URL;
	/** The checked address to connect to. */
	address: string;
	family: 4 | 6;
}

/** Refuses anything that is not an absolute http(s) URL; returns it parsed. */
export function parseWebhookUrl(raw: string): URL {
	let url: URL;
	try {
		url = new URL(raw);
	} catch {
		throw new WebhookUrlError('The url is not an absolute URL. Give the full address, such as https://n8n.example.com/webhook/….');
	}
	if (url.protocol !== 'http:' && url.protocol !== 'https:') {
		throw new WebhookUrlError(`The url must start with http:// or https://, not ${url.protocol}//.`);
	}
	if (url.username || url.password) {
		throw new WebhookUrlError('The url must not carry a user name or password; put any token in the path or query instead.');
	}
	return url;
}

/** What the server's configuration allows besides public addresses. */
export interface UrlPolicy {
	/** WEBHOOK_ALLOW_PRIVATE=true: private and loopback addresses too. */
	allowPrivate: boolean;
}

/**
 * Resolves the URL's host once and checks every address it resolves to (one bad address is
 * enough to refuse: the resolver could hand out either). Returns the address to connect to.
 */
export async function checkWebhookUrl(raw: string, { allowPrivate }: UrlPolicy): Promise<DeliveryTarget> {
	const url = parseWebhookUrl(raw);
	const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
	let addresses: Array<{ address: string; family: number }>;
	if (isIP(host)) {
		addresses = [{ address: host, family: isIP(host) }];
	} else {
		try {
			addresses = await lookup(host, { all: true, verbatim: true });
		} catch {
			throw new WebhookUrlError(`The host ${host} of the url does not resolve. Check the name, or use the address n8n is reachable at.`);
		}
	}
	if (addresses.length === 0) throw new WebhookUrlError(`The host ${host} of the url does not resolve.`);
	for (const { address } of addresses) {
		const verdict = classifyAddress(address);
		if (verdict === 'forbidden') {
			throw new WebhookUrlError(
				`The url's host ${host} is ${address}, a link-local, unspecified or reserved address that webhooks never reach. Use a public address.`,
			);
		}
		if (verdict === 'private' && !allowPrivate) {
			throw new WebhookUrlError(
				`The url's host ${host} is ${address}, a private or loopback address. Use a public address, or set WEBHOOK_ALLOW_PRIVATE=true on the server.`,
			);
		}
	}
	const chosen = addresses[0];
	return { url, address: ipaddr.process(chosen.address).toString(), family: ipaddr.process(chosen.address).kind() === 'ipv4' ? 4 : 6 };
}
