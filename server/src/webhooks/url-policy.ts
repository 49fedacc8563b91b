import { Resolver } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

import ipaddr from 'ipaddr.js';

import { RuleError } from '../common/rule-error';

/**
 * Where a webhook may point (SPEC §12, §19). The LMS runs inside someone's network: a URL must
 * not turn it into a proxy towards the cloud metadata service (169.254.169.254) or internal
 * services. Checked when an endpoint is created and again before every delivery, and the
 * delivery connects to the very address checked here, so a DNS answer that changes in between
 * (DNS rebinding) cannot move it somewhere else.
 *
 * Public is decided by an allow-list, not a deny-list: an address is public only inside IPv4
 * unicast or IPv6 2000::/3 (global unicast) and outside every block of IANA's special-purpose
 * registries. Whatever those lists do not name (a new NAT64 prefix, the old site-local fec0::/10,
 * a new documentation block) is refused rather than let through.
 */

export class WebhookUrlError extends RuleError {
	constructor(message: string) {
		super('invalid_webhook_url', message);
		this.name = 'WebhookUrlError';
	}
}

function blockList(subnets: string[]): BlockList {
	const list = new BlockList();
	for (const subnet of subnets) {
		const [network, prefix] = subnet.split('/');
		list.addSubnet(network, Number(prefix), isIP(network) === 6 ? 'ipv6' : 'ipv4');
	}
	return list;
}

/**
 * IANA IPv4 Special-Purpose Address Registry (as of 2025), every entry, globally reachable or not
 * (AS112, AMT and the like are no place for a webhook either), plus multicast (224/4), which is
 * not unicast. https://www.iana.org/assignments/iana-ipv4-special-registry/
 */
const NOT_PUBLIC_V4 = blockList([
	'0.0.0.0/8',
	'10.0.0.0/8',
	'100.64.0.0/10',
	'127.0.0.0/8',
	'169.254.0.0/16',
	'172.16.0.0/12',
	'192.0.0.0/24',
	'192.0.2.0/24',
	'192.31.196.0/24',
	'192.52.193.0/24',
	'192.88.99.0/24',
	'192.168.0.0/16',
	'192.175.48.0/24',
	'198.18.0.0/15',
	'198.51.100.0/24',
	'203.0.113.0/24',
	'224.0.0.0/4',
	'240.0.0.0/4',
	'255.255.255.255/32',
]);

/** IPv6 global unicast (RFC 4291 §2.4): the only IPv6 space that can be public. */
const GLOBAL_UNICAST_V6 = blockList(['2000::/3']);

/**
 * IANA IPv6 Special-Purpose Address Registry (as of 2025), the entries inside 2000::/3 (those
 * outside it, ::1, ::/128, 64:ff9b::/96, 64:ff9b:1::/48, 100::/64, fc00::/7, fe80::/10, 5f00::/16,
 * are refused by not being in 2000::/3). 2001::/23 covers Teredo, benchmarking, ORCHID, AMT, drone
 * IDs and whatever IETF protocol assignment comes next. https://www.iana.org/assignments/iana-ipv6-special-registry/
 */
const NOT_PUBLIC_V6 = blockList(['2001::/23', '2001:db8::/32', '2002::/16', '2620:4f:8000::/48', '3fff::/20']);

/** What WEBHOOK_ALLOW_PRIVATE=true lets through besides loopback: RFC 1918, shared (CGN), unique local. */
const PRIVATE = blockList(['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '100.64.0.0/10', 'fc00::/7']);
const LOOPBACK = blockList(['127.0.0.0/8', '::1/128']);

export type AddressVerdict = 'public' | 'private' | 'loopback' | 'forbidden';

/**
 * What kind of address this is. An IPv4-mapped IPv6 address (::ffff:a.b.c.d) is judged as the
 * IPv4 address it carries; no other embedding (NAT64, 6to4, Teredo, IPv4-compatible) is public.
 */
export function classifyAddress(address: string): AddressVerdict {
	if (!ipaddr.isValid(address)) return 'forbidden';
	const parsed = ipaddr.process(address);
	const text = parsed.toString();
	const family = parsed.kind() === 'ipv4' ? 'ipv4' : 'ipv6';
	if (LOOPBACK.check(text, family)) return 'loopback';
	if (PRIVATE.check(text, family)) return 'private';
	if (family === 'ipv4') return NOT_PUBLIC_V4.check(text, 'ipv4') ? 'forbidden' : 'public';
	return GLOBAL_UNICAST_V6.check(text, 'ipv6') && !NOT_PUBLIC_V6.check(text, 'ipv6') ? 'public' : 'forbidden';
}

/** What the server's configuration allows besides public addresses. */
export interface UrlPolicy {
	/** WEBHOOK_ALLOW_PRIVATE=true: every private and loopback address too. */
	allowPrivate: boolean;
	/**
	 * WEBHOOK_ALLOWED_HOSTS: exactly these private or loopback destinations (`host:port`, the
	 * host as written in the URL or the address it resolves to), and no others.
	 */
	allowedHosts?: readonly string[];
	/** `start --demo`: loopback addresses (n8n on the same machine), nothing else private. */
	allowLoopback?: boolean;
	/** How host names are resolved (WEBHOOK_DNS_*); the system's name servers when absent. */
	dns?: DnsOptions;
}

export interface DnsOptions {
	/** WEBHOOK_DNS_SERVERS: `ip` or `ip:port` name servers instead of /etc/resolv.conf's. */
	servers: readonly string[];
	/** Per try (c-ares `timeout`). */
	timeoutMs: number;
	tries: number;
}

/** `host:port` as WEBHOOK_ALLOWED_HOSTS and the check compare it: lower case, an IP in its canonical form, no brackets. */
function destinationKey(host: string, port: number): string {
	const bare = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
	return `${ipaddr.isValid(bare) ? ipaddr.parse(bare).toString() : bare}:${port}`;
}

/** Parses WEBHOOK_ALLOWED_HOSTS (`host:port,…`, IPv6 in brackets); throws a sentence naming the bad item. */
export function parseAllowedHosts(value: string | undefined): string[] {
	if (value === undefined || value.trim() === '') return [];
	return value.split(',').map((raw) => {
		const item = raw.trim();
		const match = /^(\[[0-9a-fA-F:.]+\]|[^:[\]\s/]+):(\d{1,5})$/.exec(item);
		const port = match ? Number(match[2]) : 0;
		if (!match || port < 1 || port > 65535) {
			throw new Error(`"${item}" is not host:port (e.g. 127.0.0.1:5678, n8n.internal:443 or [::1]:5678)`);
		}
		return destinationKey(match[1], port);
	});
}

export interface DeliveryTarget {
	url: URL;
	/** The checked address to connect to. */
	address: string;
	family: 4 | 6;
	/**
	 * Every address the host resolved to is public. Otherwise (private, loopback, allow-listed)
	 * the receiver's answer is not kept, only its status and size (SPEC §22): the URL policy lets
	 * the operator's own services through, and their answers must not be readable by whoever set the URL.
	 */
	public: boolean;
}

/** Refuses anything that is not an absolute http(s) URL; returns it parsed. */
function parseWebhookUrl(raw: string): URL {
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

function portOf(url: URL): number {
	return url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
}

/** Whether the policy lets a private or loopback address through for this URL. */
function allowedNonPublic(verdict: 'private' | 'loopback', url: URL, host: string, address: string, policy: UrlPolicy): boolean {
	if (policy.allowPrivate) return true;
	if (verdict === 'loopback' && policy.allowLoopback) return true;
	const allowed = policy.allowedHosts ?? [];
	const port = portOf(url);
	return allowed.includes(destinationKey(host, port)) || allowed.includes(destinationKey(address, port));
}

/**
 * Host names are resolved with c-ares (dns.promises.Resolver: A and AAAA, with a timeout and a
 * number of tries), never with dns.lookup: getaddrinfo runs on libuv's four pool threads, which
 * every sqlite3 statement also needs, so four slow look-ups froze the whole SQLite API for their
 * duration (issue 27, finding 3: 7.8 s). At most MAX_LOOKUPS run at once (the rest wait their
 * turn, costing nothing but their own time), concurrent checks of one name share one look-up, and
 * an answer is kept for its TTL, at most CACHE_MS, so a burst of deliveries to one receiver resolves
 * it once, and a name whose answer changes is sent to the new address once the old one expires.
 */
const MAX_LOOKUPS = 8;
const CACHE_MS = 30_000;

type Addresses = Array<{ address: string; family: number }>;

interface DnsState {
	resolver: Resolver;
	running: number;
	waiting: Array<() => void>;
	answers: Map<string, { until: number; answer: Promise<{ addresses: Addresses; ttlMs: number }> }>;
}

const DEFAULT_DNS: DnsOptions = { servers: [], timeoutMs: 2_000, tries: 2 };
const states = new WeakMap<object, DnsState>();

function dnsStateOf(options: DnsOptions | undefined): DnsState {
	const key = options ?? DEFAULT_DNS;
	let state = states.get(key);
	if (!state) {
		const resolver = new Resolver({ timeout: key.timeoutMs, tries: key.tries });
		if (key.servers.length > 0) resolver.setServers([...key.servers]);
		state = { resolver, running: 0, waiting: [], answers: new Map() };
		states.set(key, state);
	}
	return state;
}

async function limited<T>(state: DnsState, work: () => Promise<T>): Promise<T> {
	if (state.running >= MAX_LOOKUPS) await new Promise<void>((resolve) => state.waiting.push(resolve));
	state.running++;
	try {
		return await work();
	} finally {
		state.running--;
		state.waiting.shift()?.();
	}
}

/** RFC 6761: `localhost` and `*.localhost` are loopback, without asking a name server (c-ares reads no hosts file). */
const LOCALHOST: Addresses = [
	{ address: '127.0.0.1', family: 4 },
	{ address: '::1', family: 6 },
];

/** The addresses and how long to keep them: the answers' shortest TTL, at most CACHE_MS (0: asked again next time). */
async function lookUp(state: DnsState, host: string): Promise<{ addresses: Addresses; ttlMs: number }> {
	const [v4, v6] = await limited(state, () => Promise.allSettled([state.resolver.resolve4(host, { ttl: true }), state.resolver.resolve6(host, { ttl: true })]));
	const records = [
		...(v4.status === 'fulfilled' ? v4.value.map(({ address, ttl }) => ({ address, family: 4, ttl })) : []),
		...(v6.status === 'fulfilled' ? v6.value.map(({ address, ttl }) => ({ address, family: 6, ttl })) : []),
	];
	return { addresses: records.map(({ address, family }) => ({ address, family })), ttlMs: Math.min(CACHE_MS, ...records.map((r) => r.ttl * 1000)) };
}

/** Resolves a host name to every address it has (A and AAAA), or throws the refusal. */
async function resolveHost(host: string, options: DnsOptions | undefined): Promise<Addresses> {
	const name = host.toLowerCase().replace(/\.$/, '');
	if (name === 'localhost' || name.endsWith('.localhost')) return LOCALHOST;
	const state = dnsStateOf(options);
	const now = Date.now();
	let cached = state.answers.get(name);
	if (!cached || now >= cached.until) {
		const entry = { until: now + CACHE_MS, answer: lookUp(state, name) };
		state.answers.set(name, entry);
		// A name that did not resolve is asked again next time: it may have been a passing failure.
		void entry.answer.then(({ addresses, ttlMs }) => {
			entry.until = addresses.length === 0 ? 0 : now + ttlMs;
			if (entry.until <= Date.now() && state.answers.get(name) === entry) state.answers.delete(name);
		});
		cached = entry;
		// Old answers go as new ones come: the map never holds more than a window's names.
		for (const [other, old] of state.answers) if (now >= old.until) state.answers.delete(other);
	}
	const { addresses } = await cached.answer;
	if (addresses.length === 0) {
		throw new WebhookUrlError(`The host ${host} of the url does not resolve. Check the name, or use the address n8n is reachable at.`);
	}
	return addresses;
}

/**
 * Resolves the URL's host once and checks every address it resolves to (one bad address is
 * enough to refuse: the resolver could hand out either). Returns the address to connect to. A
 * refusal names the host as written, never what a name resolved to: the answer must not become
 * a way to map an internal network's names.
 */
export async function checkWebhookUrl(raw: string, policy: UrlPolicy): Promise<DeliveryTarget> {
	const url = parseWebhookUrl(raw);
	const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
	const addresses = isIP(host) ? [{ address: host, family: isIP(host) }] : await resolveHost(host, policy.dns);
	let everyPublic = true;
	for (const { address } of addresses) {
		const verdict = classifyAddress(address);
		if (verdict === 'public') continue;
		everyPublic = false;
		if (verdict !== 'forbidden' && allowedNonPublic(verdict, url, host, address, policy)) continue;
		throw new WebhookUrlError(
			`The url's host ${host} is not a public address. Webhooks are sent to public addresses only; the server's operator can allow ` +
				'a private or loopback destination with WEBHOOK_ALLOWED_HOSTS=host:port (never link-local or reserved addresses).',
		);
	}
	const chosen = ipaddr.process(addresses[0].address);
	return { url, address: chosen.toString(), family: chosen.kind() === 'ipv4' ? 4 : 6, public: everyPublic };
}
