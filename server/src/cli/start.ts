import type { Command } from 'commander';
import type { Logger } from 'pino';

import { createKey } from '../api-keys/lifecycle';
import { SCOPES } from '../api-keys/model';
import { loadConfig, type Config } from '../config';
import { Organization } from '../db';
import { seedDemo } from '../demo/seed';
import { prepareWalkthrough } from '../demo/walkthrough';
import { findOrganization } from '../organizations/service';
import { createLogger } from '../http/logging';
import { withDatabase } from './context';
import { printDemo } from './seed';
import { CliError, printToStderr } from './output';

/** After this long, a drain that still waits on a client gives up rather than hang a deploy. */
const DRAIN_LIMIT_MS = 30_000;

/**
 * `start --demo` on an empty database: the demo data plus one all-scope key for acme, printed
 * once, so the README's quick start ends with something to curl. Printed on stderr: stdout is
 * the JSON log stream, which log collectors keep, and a password or key must never land there. Done before listening, so
 * nobody ever sees the server half-seeded.
 */
function loadDemoIfEmpty(config: Config, migrate: boolean): Promise<(url: string) => void> {
	return withDatabase(async () => {
		if ((await Organization.count()) > 0) {
			return () =>
				printToStderr(
					'Demo data not loaded: the database already has organizations. Demo passwords and the demo key',
					'are printed only on the first start; create a key with `lms-server keys create`, or point',
					'DATABASE_URL at an empty database (the default is ./data/lms.sqlite) to start over.',
				);
		}
		const demo = await seedDemo();
		const acme = demo.organizations.find((o) => o.slug === 'acme')!;
		const { secret } = await createKey({
			organizationId: acme.id,
			label: 'Demo key (all scopes)',
			scopes: [...SCOPES],
			actor: { kind: 'cli' },
		});
		const admin = demo.accounts.find((a) => a.organization === 'acme' && a.role === 'super_admin')!;
		const walkthrough = await prepareWalkthrough(await findOrganization('acme'));
		return (url) => {
			printDemo(demo, printToStderr);
			printToStderr(
				'',
				`Sign in at ${url}/login as ${admin.email} with password ${admin.password}`,
				`Demo API key for acme (every scope, shown once): ${secret}`,
				'',
				'Try it:',
				`  curl -H "Authorization: Bearer ${secret}" ${url}/api/v1/courses`,
				'',
				"For the README's \"Use the API\" and the examples in docs/, paste this into a terminal first:",
				`  export LMS=${url} KEY=${secret} ${Object.entries(walkthrough).map(([name, value]) => `${name}=${value}`).join(' ')}`,
				'',
			);
		};
	}, { config, migrate, create: true });
}

function drainOnSignals(close: () => Promise<void>, logger: Logger): void {
	let draining = false;
	let exitCode = 0;
	const stop = (signal: NodeJS.Signals) => {
		if (draining) {
			// A second Ctrl-C means "now".
			logger.warn({ signal }, 'second signal: exiting without waiting');
			process.exit(1);
		}
		draining = true;
		logger.info({ signal }, 'draining in-flight requests, then exiting');
		setTimeout(() => {
			logger.error('drain took too long: exiting');
			process.exit(1);
		}, DRAIN_LIMIT_MS).unref();
		close().then(
			() => process.exit(exitCode),
			(err: unknown) => {
				logger.error({ err }, 'error while draining');
				process.exit(1);
			},
		);
	};
	process.on('SIGTERM', stop);
	process.on('SIGINT', stop);
	// A promise nothing awaited failed: the process's state is unknown. Say so in the JSON log (Node
	// would print a bare stack to stderr), drain, and exit non-zero so that a supervisor restarts it.
	process.on('unhandledRejection', (reason: unknown) => {
		logger.fatal({ err: reason }, 'a promise failed and nothing handled it: draining, then exiting with code 1');
		exitCode = 1;
		if (!draining) stop('SIGTERM');
	});
}

export function registerStart(program: Command): void {
	program
		.command('start')
		.description('run the server (applies pending migrations first)')
		.option('--no-migrate', 'do not apply migrations (when a deploy step already did)')
		.option('--demo', 'on an empty database, load the demo data and print a login and an API key')
		.action(async (opts: { migrate: boolean; demo?: boolean }) => {
			const config = loadConfig(process.env);
			// The demo runs n8n next to the LMS, on this host: its webhooks may reach loopback
			// addresses, and nothing else that is not public (issue 27), unless the operator chose
			// with WEBHOOK_ALLOW_PRIVATE or WEBHOOK_ALLOWED_HOSTS.
			if (opts.demo && !process.env.WEBHOOK_ALLOW_PRIVATE && !process.env.WEBHOOK_ALLOWED_HOSTS) config.webhooks.allowLoopback = true;
			const logger = createLogger(config);
			const announceDemo = opts.demo ? await loadDemoIfEmpty(config, opts.migrate) : undefined;
			// Loaded here so that the one-shot commands do not pay for Express and the web layer.
			const { startServer } = await import('../server');
			// With --demo the migrations already ran above; the server need not check again.
			const server = await startServer({ config, logger, migrate: opts.migrate && !opts.demo }).catch((err: unknown) => {
				const code = (err as { code?: unknown }).code;
				if (code === 'LIMIT_STORE_UNAVAILABLE' || code === 'DATABASE_UNAVAILABLE') throw new CliError((err as Error).message);
				if (code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL') {
					throw new CliError(`cannot listen on ${config.host}:${config.port} (${String(code)}): choose another PORT or HOST.`);
				}
				throw err;
			});
			drainOnSignals(() => server.close(), logger);
			logger.info({ url: server.url }, `LMS server listening on ${server.url}`);
			announceDemo?.(server.url);
		});
}
