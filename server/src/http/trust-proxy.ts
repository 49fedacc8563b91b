import ipaddr from 'ipaddr.js';

/**
 * `TRUST_PROXY` names the proxies whose `X-Forwarded-For` the server believes. A value that
 * trusts every address lets any client pick its own IP (and so escape the per-IP limit and forge
 * audit addresses), so it is refused, whichever way it is written: `true`, `0.0.0.0/0`, `::/0`,
 * or several ranges that together cover a whole address family. Hop counts are refused too: a
 * count trusts the nearest hops whatever their address, including a client that reaches the
 * server directly.
 *
 * Coverage is computed, not pattern-matched: every entry becomes an address interval, the
 * intervals are merged per family, and a family covered from its first to its last address is
 * refused. IPv4 entries also match IPv4-mapped IPv6 clients (and `::ffff:0:0/96` all IPv4
 * clients), as in Express's proxy-addr, so each family is checked with the other's ranges
 * projected into it.
 */

/** Express's named ranges (proxy-addr). */
const NAMED: Record<string, string[]> = {
	loopback: ['127.0.0.1/8', '::1/128'],
	linklocal: ['169.254.0.0/16', 'fe80::/10'],
	uniquelocal: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7'],
};

type Family = 'ipv4' | 'ipv6';
interface Interval {
	family: Family;
	start: bigint;
	end: bigint;
}

const BITS: Record<Family, number> = { ipv4: 32, ipv6: 128 };
const MAPPED_PREFIX = 0xffffn << 32n; // ::ffff:0:0/96

export class TrustProxyError extends Error {}

function toBigInt(address: ipaddr.IPv4 | ipaddr.IPv6): bigint {
	return address.toByteArray().reduce((n, byte) => (n << 8n) | BigInt(byte), 0n);
}

function parseEntry(entry: string): Interval {
	const [addressText, maskText, ...rest] = entry.split('/');
	if (rest.length > 0 || !ipaddr.isValid(addressText)) {
		throw new TrustProxyError(`"${entry}" is not an IP address, a CIDR range or one of loopback, linklocal, uniquelocal`);
	}
	const address = ipaddr.parse(addressText);
	const family = address.kind();
	const bits = BITS[family];
	let prefix = bits;
	if (maskText !== undefined) {
		if (/^\d{1,3}$/.test(maskText)) prefix = Number(maskText);
		else if (family === 'ipv4' && ipaddr.IPv4.isValid(maskText)) {
			prefix = ipaddr.IPv4.parse(maskText).prefixLengthFromSubnetMask() ?? -1;
		} else prefix = -1;
		if (prefix < 0 || prefix > bits) throw new TrustProxyError(`"${entry}" has an invalid prefix length or netmask`);
	}
	const size = 1n << BigInt(bits - prefix);
	const start = toBigInt(address) & ~(size - 1n);
	return { family, start, end: start + size - 1n };
}

/** The part of each interval that lands in `family`, IPv4 ↔ IPv4-mapped IPv6. */
function projected(intervals: Interval[], family: Family): Interval[] {
	return intervals.flatMap((i): Interval[] => {
		if (i.family === family) return [i];
		if (family === 'ipv6') return [{ family, start: MAPPED_PREFIX | i.start, end: MAPPED_PREFIX | i.end }];
		const lo = i.start > MAPPED_PREFIX ? i.start : MAPPED_PREFIX;
		const hi = i.end < (MAPPED_PREFIX | 0xffffffffn) ? i.end : MAPPED_PREFIX | 0xffffffffn;
		return lo <= hi ? [{ family, start: lo - MAPPED_PREFIX, end: hi - MAPPED_PREFIX }] : [];
	});
}

/** True when the intervals, merged, run from the family's first address to its last. */
function coversAll(intervals: Interval[], family: Family): boolean {
	const sorted = projected(intervals, family).sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0));
	let next = 0n; // the first address not yet covered
	for (const i of sorted) {
		if (i.start > next) return false;
		if (i.end + 1n > next) next = i.end + 1n;
	}
	return next === 1n << BigInt(BITS[family]);
}

/**
 * The value for Express's `trust proxy` setting: false (trust no proxy) or the list of
 * addresses/ranges/names as given. Throws TrustProxyError with a sentence for anything else.
 */
export function parseTrustProxy(value: string | undefined): string | false {
	const text = value?.trim() ?? '';
	if (text === '' || text === 'false' || text === '0') return false;
	if (/^(true|\*)$/i.test(text)) {
		throw new TrustProxyError(`"${text}" would trust every address and let any client pick its IP; name the proxies' addresses (e.g. loopback or 10.0.0.5)`);
	}
	if (/^\d+$/.test(text)) {
		throw new TrustProxyError(
			`a hop count (${text}) trusts the nearest hops whatever their address, including clients that reach the server directly; name the proxies' addresses instead (e.g. loopback or 10.0.0.5)`,
		);
	}
	const entries = text.split(',').map((e) => e.trim());
	const intervals = entries.flatMap((entry) => {
		if (entry === '') throw new TrustProxyError('has an empty entry; separate addresses with single commas');
		return (NAMED[entry.toLowerCase()] ?? [entry]).map(parseEntry);
	});
	for (const family of ['ipv4', 'ipv6'] as const) {
		if (coversAll(intervals, family)) {
			throw new TrustProxyError(
				`"${text}" covers every ${family === 'ipv4' ? 'IPv4' : 'IPv6'} address, so any client could pick its IP; name only the proxies' addresses`,
			);
		}
	}
	return entries.join(',');
}
