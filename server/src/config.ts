import { randomBytes } from 'node:crypto';

import Joi from 'joi';

import { parseTrustProxy, TrustProxyError } from './http/trust-proxy';
import { parseAllowedHosts, type DnsOptions } from './webhooks/url-policy';

/** Everything the server reads from the environment, validated once at start-up. */
export interface Config {
	port: number;
	host: string;
	databaseUrl: string;
	databasePoolMax: number;
	redisUrl: string | undefined;
	/** Key prefix of the per-IP counters in Redis: separates deployments that share one Redis. */
	rateLimitRedisPrefix: string;
	/** Express's `trust proxy`: false, or the proxies' addresses/ranges (never everyone). */
	trustProxy: string | false;
	/** A request's headers must arrive within this (SPEC §14: 10 s). */
	headersTimeoutMs: number;
	/** A whole request, body included, must arrive within this (SPEC §14: 30 s). */
	requestTimeoutMs: number;
	rateLimitPerMinute: number;
	rateLimitWindowMs: number;
	scimRateLimitPerMinute: number;
	logLevel: string;
	sessionSecret: string;
	production: boolean;
	/**
	 * PUBLIC_URL: the server's address as its users reach it (scheme, host, optional port and path
	 * prefix, no trailing slash). Every absolute link (list and feed `Link` headers, SCIM
	 * `meta.location` and `Location`, the Settings page's Base URL, the CLI's reset links) starts
	 * with it when set, never with the request's Host header, which any client can forge.
	 */
	publicUrl?: string;
	/** Events are kept at least this many days (SPEC §11), then removed. */
	eventRetentionDays: number;
	/** How often each instance looks for deadlines that have passed (SPEC §17: told within a minute). */
	overdueSweepMs: number;
	webhooks: WebhookConfig;
	/** METRICS_TOKEN: GET /metrics on the server's port answers only with it as a Bearer token (SPEC §19). */
	metricsToken: string | undefined;
	/** METRICS_PORT: /metrics on a port of its own, bound to loopback, without a token. */
	metricsPort: number | undefined;
}

export interface WebhookConfig {
	/** WEBHOOK_ALLOW_PRIVATE=true: endpoints may be private and loopback addresses too (never link-local). */
	allowPrivate: boolean;
	/** WEBHOOK_ALLOWED_HOSTS: these private or loopback `host:port` destinations only (SPEC §19), normalised. */
	allowedHosts: string[];
	/** Loopback addresses allowed (the demo, unless either variable above is set). */
	allowLoopback: boolean;
	/**
	 * What seals signing secrets at rest (webhooks/secrets.ts): SEALING_SECRET (default
	 * SESSION_SECRET, else outside production a fixed development value), then the secrets of
	 * SEALING_SECRET_PREVIOUS that still open what they sealed until the start re-seals it.
	 */
	sealingSecrets: string[];
	/** Name servers for webhook hosts (WEBHOOK_DNS_SERVERS, WEBHOOK_DNS_TIMEOUT_MS, WEBHOOK_DNS_TRIES). */
	dns: DnsOptions;
	/** The first retry delay; later ones are 5×, 30×, 120×, 480× and 1440× it (1 min … 24 h by default). */
	retryBaseMs: number;
	/** How long a receiver has to answer (10 s). */
	timeoutMs: number;
	/** How often an idle worker looks for due deliveries (those written by another instance, retries). */
	pollMs: number;
}

export class ConfigError extends Error {
	constructor(readonly variable: string, message: string) {
		super(`${variable}: ${message}`);
		this.name = 'ConfigError';
	}
}

/** The environment once the schema has checked, converted and defaulted it. */
interface Environment {
	PORT: number;
	HOST: string;
	DATABASE_URL: string;
	DATABASE_POOL_MAX: number;
	REDIS_URL?: string;
	RATE_LIMIT_REDIS_PREFIX: string;
	TRUST_PROXY?: string;
	RATE_LIMIT_PER_MINUTE: number;
	RATE_LIMIT_WINDOW_MS: number;
	SCIM_RATE_LIMIT_PER_MINUTE: number;
	HEADERS_TIMEOUT_MS: number;
	REQUEST_TIMEOUT_MS: number;
	LOG_LEVEL: Config['logLevel'];
	SESSION_SECRET?: string;
	NODE_ENV?: string;
	PUBLIC_URL?: string;
	WEBHOOK_ALLOW_PRIVATE: 'true' | 'false';
	WEBHOOK_ALLOWED_HOSTS?: string;
	SEALING_SECRET?: string;
	WEBHOOK_DNS_SERVERS?: string;
	WEBHOOK_DNS_TIMEOUT_MS: number;
	WEBHOOK_DNS_TRIES: number;
	SEALING_SECRET_PREVIOUS?: string;
	WEBHOOK_RETRY_BASE_MS: number;
	WEBHOOK_TIMEOUT_MS: number;
	WEBHOOK_POLL_MS: number;
	EVENT_RETENTION_DAYS: number;
	METRICS_TOKEN?: string;
	METRICS_PORT?: number;
	OVERDUE_SWEEP_MS: number;
}

const schema = Joi.object<Environment>({
	PORT: Joi.number().integer().min(0).max(65535).default(3000),
	HOST: Joi.string().hostname().default('127.0.0.1'),
	DATABASE_URL: Joi.string()
		.pattern(/^(sqlite:|postgres:\/\/|postgresql:\/\/)/)
		.message('must start with sqlite: or postgres://')
		.default('sqlite:./data/lms.sqlite'),
	DATABASE_POOL_MAX: Joi.number().integer().min(1).max(200).default(10),
	REDIS_URL: Joi.string()
		.uri({ scheme: ['redis', 'rediss'] })
		.empty('')
		.optional(),
	RATE_LIMIT_REDIS_PREFIX: Joi.string()
		.pattern(/^[A-Za-z0-9:_.-]{1,64}$/)
		.message('must be 1 to 64 letters, digits or : _ . -')
		.empty('')
		.default('lms:rl:'),
	TRUST_PROXY: Joi.string().empty('').optional(),
	RATE_LIMIT_PER_MINUTE: Joi.number().integer().min(1).max(1_000_000_000).default(100),
	// Tests shorten the window so a 429 clears in seconds; operators leave it at one minute.
	RATE_LIMIT_WINDOW_MS: Joi.number().integer().min(1000).max(3_600_000).default(60_000),
	// SPEC §21: SCIM is limited per API key (identity providers share a few addresses); Entra
	// expects at least 25 requests a second.
	SCIM_RATE_LIMIT_PER_MINUTE: Joi.number().integer().min(1).max(1_000_000_000).default(1800),
	// SPEC §14's limits on slow clients. Tests shorten them; operators have no reason to.
	HEADERS_TIMEOUT_MS: Joi.number().integer().min(100).max(60_000).default(10_000),
	REQUEST_TIMEOUT_MS: Joi.number().integer().min(100).max(600_000).default(30_000),
	LOG_LEVEL: Joi.string()
		.valid('fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent')
		.default('info'),
	SESSION_SECRET: Joi.string().min(32).empty('').optional(),
	NODE_ENV: Joi.string().empty('').optional(),
	PUBLIC_URL: Joi.string()
		.uri({ scheme: ['http', 'https'] })
		.pattern(/^[^?#]*$/)
		.message('must be an http:// or https:// URL without query or fragment, e.g. https://lms.example.com')
		.empty('')
		.optional(),
	WEBHOOK_ALLOW_PRIVATE: Joi.string().valid('true', 'false').empty('').default('false'),
	WEBHOOK_ALLOWED_HOSTS: Joi.string().max(4000).empty('').optional(),
	SEALING_SECRET: Joi.string().min(32).empty('').optional(),
	// Name servers for webhook hosts: `ip` or `ip:port`, IPv6 as `[ip]:port`; default /etc/resolv.conf's.
	WEBHOOK_DNS_SERVERS: Joi.string()
		.pattern(/^(\d{1,3}(\.\d{1,3}){3}(:\d{1,5})?|\[[0-9a-fA-F:]+\](:\d{1,5})?|[0-9a-fA-F:]+)(,(\d{1,3}(\.\d{1,3}){3}(:\d{1,5})?|\[[0-9a-fA-F:]+\](:\d{1,5})?|[0-9a-fA-F:]+))*$/)
		.message('must be comma-separated name server addresses, ip or ip:port (IPv6 as [ip]:port)')
		.empty('')
		.optional(),
	WEBHOOK_DNS_TIMEOUT_MS: Joi.number().integer().min(100).max(30_000).default(2_000),
	WEBHOOK_DNS_TRIES: Joi.number().integer().min(1).max(5).default(2),
	// Comma-separated: the secrets used before, during a rotation (docs/webhooks.md).
	SEALING_SECRET_PREVIOUS: Joi.string()
		.pattern(/^[^,]{32,}(,[^,]{32,})*$/)
		.message('must be one or more earlier secrets of 32+ characters, separated by commas')
		.empty('')
		.optional(),
	// Tests shorten the retry schedule, the timeout and the poll; operators leave the defaults (SPEC §12).
	WEBHOOK_RETRY_BASE_MS: Joi.number().integer().min(10).max(3_600_000).default(60_000),
	WEBHOOK_TIMEOUT_MS: Joi.number().integer().min(100).max(10_000).default(10_000),
	WEBHOOK_POLL_MS: Joi.number().integer().min(20).max(60_000).default(1_000),
	// A scraper's secret: long enough that guessing it is not an option.
	METRICS_TOKEN: Joi.string()
		.pattern(/^[\x21-\x7e]{16,200}$/)
		.message('must be 16 to 200 printable characters without spaces (e.g. openssl rand -hex 32)')
		.empty('')
		.optional(),
	METRICS_PORT: Joi.number().integer().min(1).max(65535).empty('').optional(),
	EVENT_RETENTION_DAYS: Joi.number()
		.integer()
		.min(1)
		.max(36_500)
		.empty('')
		.default(30)
		.messages(Object.fromEntries(['number.base', 'number.integer', 'number.min', 'number.max', 'number.unsafe', 'number.infinity'].map((k) => [k, 'must be a whole number of days from 1 to 36500 (default 30)']))),
	// Tests shorten it to see enrollment.overdue in seconds; a minute is the most SPEC §17 allows.
	OVERDUE_SWEEP_MS: Joi.number().integer().min(50).max(60_000).empty('').default(15_000),
}).unknown(true);

/**
 * Not a secret: what seals webhook secrets when neither SEALING_SECRET nor SESSION_SECRET is set,
 * which only a development server may do (production requires SESSION_SECRET). A fixed value,
 * unlike the random development SESSION_SECRET, so that a restart, a second instance or the CLI
 * can still open what was sealed.
 */
const DEVELOPMENT_SEALING_SECRET = 'lms development sealing secret: not for production';

function allowedHostsOf(value: string | undefined): string[] {
	try {
		return parseAllowedHosts(value);
	} catch (err) {
		throw new ConfigError('WEBHOOK_ALLOWED_HOSTS', `${(err as Error).message}; give comma-separated host:port pairs`);
	}
}

function trustProxyOf(value: string | undefined): string | false {
	try {
		return parseTrustProxy(value);
	} catch (err) {
		if (err instanceof TrustProxyError) throw new ConfigError('TRUST_PROXY', err.message);
		throw err;
	}
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
	const result = schema.validate(env, { abortEarly: true, convert: true });
	if (result.error) {
		const detail = result.error.details[0];
		throw new ConfigError(String(detail.path[0]), detail.message.replace(/^"[^"]+" /, ''));
	}
	const value = result.value;
	// `Production` or ` production` must not quietly run a production server on a random secret.
	const nodeEnv = value.NODE_ENV?.trim() ?? '';
	const production = nodeEnv.toLowerCase() === 'production';
	if (production && !value.SESSION_SECRET) {
		throw new ConfigError('SESSION_SECRET', `is required when NODE_ENV=${nodeEnv} (32+ characters)`);
	}
	return {
		port: value.PORT,
		host: value.HOST,
		databaseUrl: value.DATABASE_URL,
		databasePoolMax: value.DATABASE_POOL_MAX,
		redisUrl: value.REDIS_URL,
		rateLimitRedisPrefix: value.RATE_LIMIT_REDIS_PREFIX,
		trustProxy: trustProxyOf(value.TRUST_PROXY),
		// Headers are part of the request: a shorter request limit caps both (Node requires it).
		headersTimeoutMs: Math.min(value.HEADERS_TIMEOUT_MS, value.REQUEST_TIMEOUT_MS),
		requestTimeoutMs: value.REQUEST_TIMEOUT_MS,
		rateLimitPerMinute: value.RATE_LIMIT_PER_MINUTE,
		rateLimitWindowMs: value.RATE_LIMIT_WINDOW_MS,
		scimRateLimitPerMinute: value.SCIM_RATE_LIMIT_PER_MINUTE,
		logLevel: value.LOG_LEVEL,
		// Outside production an ephemeral secret is fine: sessions simply end with the process.
		sessionSecret: value.SESSION_SECRET ?? randomBytes(32).toString('hex'),
		production,
		publicUrl: value.PUBLIC_URL?.replace(/\/+$/, ''),
		eventRetentionDays: value.EVENT_RETENTION_DAYS,
		metricsToken: value.METRICS_TOKEN,
		metricsPort: value.METRICS_PORT,
		overdueSweepMs: value.OVERDUE_SWEEP_MS,
		webhooks: {
			allowPrivate: value.WEBHOOK_ALLOW_PRIVATE === 'true',
			allowedHosts: allowedHostsOf(value.WEBHOOK_ALLOWED_HOSTS),
			allowLoopback: false,
			dns: {
				servers: value.WEBHOOK_DNS_SERVERS?.split(',') ?? [],
				timeoutMs: value.WEBHOOK_DNS_TIMEOUT_MS,
				tries: value.WEBHOOK_DNS_TRIES,
			},
			sealingSecrets: [
				value.SEALING_SECRET ?? value.SESSION_SECRET ?? DEVELOPMENT_SEALING_SECRET,
				...(value.SEALING_SECRET_PREVIOUS?.split(',') ?? []),
			],
			retryBaseMs: value.WEBHOOK_RETRY_BASE_MS,
			timeoutMs: value.WEBHOOK_TIMEOUT_MS,
			pollMs: value.WEBHOOK_POLL_MS,
		},
	};
}
