import { createServer, type Server } from 'node:http';
import type { RequestListener } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

import type { Store } from 'express-rate-limit';
import type { Logger } from 'pino';

import type { Config } from './config';
import { connect, DatabaseFileError, migrate as applyMigrations, type Database } from './db';
import { createApp } from './http/app';
import { createLogger } from './http/logging';
import { startJobs } from './jobs/start';
import { listenForMetrics } from './http/metrics';
import { waitForLimitStore } from './http/rate-limit-store';
import { sealWebhookSecrets } from './webhooks/secrets';

/** How long a start waits for a shared rate-limit store (Redis) before giving up. */
const LIMIT_STORE_STARTUP_MS = 10_000;

export interface StartOptions {
	config: Config;
	logger?: Logger;
	/** Apply pending migrations before listening (default true; `start --no-migrate` passes false). */
	migrate?: boolean;
	rateLimitStore?: Store;
	/** How long close() waits for in-flight requests before cutting them off. */
	drainTimeoutMs?: number;
}

export interface RunningServer {
	/** The origin, e.g. `http://127.0.0.1:3000` (no trailing slash). */
	url: string;
	port: number;
	db: Database;
	/** The listening socket's server, with the timeouts below applied. */
	httpServer: Server;
	/** Stops accepting, lets in-flight requests finish, then releases the database and Redis. */
	close(): Promise<void>;
}

function originOf(host: string, port: number): string {
	const shown = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
	return `http://${shown.includes(':') ? `[${shown}]` : shown}:${port}`;
}

/**
 * The one place that bounds how long a client may hold a connection (SPEC §14): its headers
 * within HEADERS_TIMEOUT_MS (10 s), the whole request within REQUEST_TIMEOUT_MS (30 s), both
 * answered 408 and closed; an idle keep-alive connection closes after 5 s; a socket that sends
 * nothing at all (half-open) closes once it has been silent for the request limit. Node checks
 * the first two on a timer, so the timer runs often enough for the limits to hold to within a
 * second rather than its default 30 s.
 */
export function listeningServer(app: RequestListener, config: Config): Server {
	const server = createServer(
		{ connectionsCheckingInterval: Math.min(1000, Math.ceil(config.headersTimeoutMs / 4)) },
		app,
	);
	server.headersTimeout = config.headersTimeoutMs;
	server.requestTimeout = config.requestTimeoutMs;
	server.keepAliveTimeout = Math.min(5000, config.headersTimeoutMs);
	server.timeout = config.requestTimeoutMs;
	// A socket silent for the whole request limit is destroyed (the default only emits 'timeout').
	server.on('timeout', (socket: Socket) => socket.destroy());
	return server;
}

function isLoopbackHost(host: string): boolean {
	return host === 'localhost' || host === '::1' || /^127\./.test(host);
}

/**
 * WEBHOOK_ALLOW_PRIVATE and WEBHOOK_ALLOWED_HOSTS exist for n8n on the same machine. On a server
 * that listens beyond loopback they let anyone with a `manage:webhooks` key reach internal
 * services through the LMS: say so at start, so that it is a choice and not an accident.
 */
export function warnOfOpenWebhooks(config: Config, logger: Logger): void {
	const { allowPrivate, allowedHosts } = config.webhooks;
	if ((!allowPrivate && allowedHosts.length === 0) || isLoopbackHost(config.host)) return;
	logger.warn(
		{ host: config.host, WEBHOOK_ALLOW_PRIVATE: allowPrivate, WEBHOOK_ALLOWED_HOSTS: allowedHosts },
		`webhooks may reach ${allowPrivate ? 'every private and loopback address' : allowedHosts.join(', ')} while the server listens on ${config.host}, beyond loopback: ` +
			'any key with manage:webhooks can make the LMS post there. Unset WEBHOOK_ALLOW_PRIVATE / narrow WEBHOOK_ALLOWED_HOSTS unless this is intended.',
	);
}

/** A database the server cannot open (a folder it cannot make, a refused connection): the operator's to fix. */
class DatabaseUnavailableError extends Error {
	/** Checked by `code`, as the socket errors are, so the CLI need not load the web layer. */
	readonly code = 'DATABASE_UNAVAILABLE';
}

/** The network half of the server: database, migrations, the app, a listening socket. */
export async function startServer(options: StartOptions): Promise<RunningServer> {
	const { config } = options;
	const logger = options.logger ?? createLogger(config);
	// The URL may hold a password: the line names the variable, never the value.
	const db = await connect({ databaseUrl: config.databaseUrl, poolMax: config.databasePoolMax }).catch((err: unknown) => {
		if (err instanceof DatabaseFileError) throw err;
		throw new DatabaseUnavailableError(`cannot open the database named by DATABASE_URL: ${err instanceof Error ? err.message : String(err)}`);
	});
	if (options.migrate !== false) await applyMigrations(db);
	// Plaintext signing secrets (before migration 0015) and those of a previous SEALING_SECRET.
	if (options.migrate !== false) await sealWebhookSecrets(config.webhooks, logger);

	const app = createApp({ config, logger, db }, { rateLimitStore: options.rateLimitStore });
	const limitStore = app.locals.limitStore;
	if (limitStore) {
		await waitForLimitStore(limitStore, LIMIT_STORE_STARTUP_MS).catch(async (err: unknown) => {
			await limitStore.close();
			await db.close();
			throw err;
		});
	}

	const server = listeningServer(app, config);
	await new Promise<void>((resolve, reject) => {
		server.once('error', reject);
		server.listen(config.port, config.host, () => {
			server.off('error', reject);
			resolve();
		});
	});
	const port = (server.address() as AddressInfo).port;
	const metricsServer = config.metricsPort === undefined ? undefined : await listenForMetrics(config.metricsPort).catch(async (err: unknown) => {
		server.close();
		await limitStore?.close();
		await db.close();
		throw err;
	});
	if (metricsServer) logger.info({ port: config.metricsPort }, `metrics on http://127.0.0.1:${config.metricsPort}/metrics`);
	warnOfOpenWebhooks(config, logger);
	// Webhook sending, sweeps and retention (jobs/table.ts).
	const jobs = startJobs({ config, db, logger });

	let closing: Promise<void> | undefined;
	const close = () => {
		closing ??= (async () => {
			const drained = new Promise<void>((resolve) => server.close(() => resolve()));
			// Keep-alive sockets become idle as their last response ends: close them as they do,
			// rather than waiting for clients to hang up.
			server.closeIdleConnections();
			const sweep = setInterval(() => server.closeIdleConnections(), 50);
			const cutOff = setTimeout(() => server.closeAllConnections(), options.drainTimeoutMs ?? 10_000);
			metricsServer?.closeAllConnections();
			metricsServer?.close();
			await drained;
			clearInterval(sweep);
			clearTimeout(cutOff);
			await jobs.stop();
			await limitStore?.close();
			await db.close();
		})();
		return closing;
	};

	return { url: originOf(config.host, port), port, db, httpServer: server, close };
}
