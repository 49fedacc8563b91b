import { ConfigError, loadConfig } from '../../server/src/config';

/** SPEC §14: TRUST_PROXY refuses any value that would trust every address, however it is written. */

const trustProxy = (value: string) => loadConfig({ TRUST_PROXY: value }).trustProxy;

function refusal(value: string): ConfigError {
	try {
		trustProxy(value);
	} catch (err) {
		expect(err).toBeInstanceOf(ConfigError);
		return err as ConfigError;
	}
	throw new Error(`TRUST_PROXY=${value} was accepted`);
}

test.each([
	'true',
	'TRUE',
	'*',
	'0.0.0.0/0',
	'::/0',
	'0::0/0',
	'0.0.0.0/0.0.0.0',
	'0.0.0.0/1,128.0.0.0/1',
	'128.0.0.0/1, 0.0.0.0/2, 64.0.0.0/2',
	'loopback,0.0.0.0/1,128.0.0.0/1',
	'::/1,8000::/1',
	// IPv4-mapped IPv6: proxy-addr checks IPv4 clients against it, so it is every IPv4 client.
	'::ffff:0:0/96',
	'::ffff:0.0.0.0/97,::ffff:128.0.0.0/97',
])('refuses %s, which trusts every address', (value) => {
	const err = refusal(value);
	expect(err.variable).toBe('TRUST_PROXY');
	expect(err.message).toMatch(/^TRUST_PROXY: .*(every|any client)/);
});

test.each(['1', '2', '1000000'])('refuses the hop count %s and says to name the proxies', (value) => {
	expect(refusal(value).message).toMatch(/^TRUST_PROXY: a hop count .* name the proxies' addresses/);
});

test.each(['10.0.0.300', 'example.com', '10.0.0.0/33', '10.0.0.1,,10.0.0.2', '::1/129', '10.0.0.0/255.0.255.0'])(
	'refuses %s, which is not an address, with a sentence',
	(value) => {
		expect(refusal(value).message).toMatch(/^TRUST_PROXY: /);
	},
);

test.each([
	['loopback', 'loopback'],
	['10.0.0.5', '10.0.0.5'],
	['10.0.0.0/8, 192.168.0.0/16', '10.0.0.0/8,192.168.0.0/16'],
	['0.0.0.0/1', '0.0.0.0/1'],
	['loopback,linklocal,uniquelocal', 'loopback,linklocal,uniquelocal'],
	['::1,fd00::/8', '::1,fd00::/8'],
	// All but one address is not everything: the one left out cannot forge.
	['0.0.0.0/1,128.0.0.0/2,192.0.0.0/3,224.0.0.0/4,240.0.0.0/5,248.0.0.0/6,252.0.0.0/7,254.0.0.0/8', undefined],
])('accepts %s', (value, expected) => {
	expect(trustProxy(value)).toBe(expected ?? value);
});

test.each(['', 'false', '0'])('%j trusts no proxy', (value) => {
	expect(trustProxy(value)).toBe(false);
});
