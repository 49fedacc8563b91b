import type { QueryInterface } from 'sequelize';
import { SequelizeStorage, Umzug, type RunnableMigration } from 'umzug';

import type { Database } from './database';
import * as initial from './migrations/0001-initial';
import * as sessions from './migrations/0002-sessions';
import * as postgresIdOrder from './migrations/0003-postgres-id-order';
import * as signInAndOneTimeKeys from './migrations/0004a-sign-in-attempts-and-one-time-keys';
import * as events from './migrations/0006-events';
import * as searchWords from './migrations/0007-search-words';
import * as webhooks from './migrations/0008-webhooks';
import * as listCounts from './migrations/0009-list-counts';
import * as listCountsPerStatement from './migrations/0010-list-counts-per-statement';
import * as idempotencyKeys from './migrations/0012-idempotency-keys';
import * as usersProvisioning from './migrations/0013-users-provisioning';
import * as enrollmentDueDates from './migrations/0014-enrollment-due-dates';
import * as webhookOwners from './migrations/0015-webhook-owners-and-sealed-secrets';
import * as signInClientsAndDevices from './migrations/0017-sign-in-clients-and-devices';
import * as webhookDeliveryExchanges from './migrations/0018-webhook-delivery-exchanges';
import * as reportCounters from './migrations/0019-report-counters';
import * as apiKeyExpiry from './migrations/0020-api-key-expiry';
import * as webhookDeliveriesPendingByEndpoint from './migrations/0021-webhook-deliveries-pending-by-endpoint';
import * as webhookDeliveryAttempts from './migrations/0024-webhook-delivery-attempts-and-key-grace';
import * as groupsAndAssignments from './migrations/0023-groups-and-assignments';
import * as passwordResetLinks from './migrations/0026-password-reset-links';
import * as scimDeletedUsers from './migrations/0027-scim-deleted-users';
import * as userUsernamesAndProfiles from './migrations/0022-user-usernames-and-profiles';

type Migration = RunnableMigration<QueryInterface>;

/**
 * Versioned migrations, listed explicitly so the compiled server needs no file globbing and
 * the order is plain to read. Add new ones at the end; never edit one that has shipped. A
 * migration carries the SQL and helpers it needs, importing nothing from outside its folder but
 * sequelize/umzug types, so a change elsewhere cannot rewrite it (test/server/migrations.test.ts,
 * which also holds the schema the shipped ones leave to a dump of it).
 */
const MIGRATIONS: Array<[string, Pick<Migration, 'up' | 'down'>]> = [
	['0001-initial', initial],
	['0002-sessions', sessions],
	['0003-postgres-id-order', postgresIdOrder],
	['0004a-sign-in-attempts-and-one-time-keys', signInAndOneTimeKeys],
	['0006-events', events],
	['0007-search-words', searchWords],
	['0008-webhooks', webhooks],
	['0009-list-counts', listCounts],
	['0010-list-counts-per-statement', listCountsPerStatement],
	['0012-idempotency-keys', idempotencyKeys],
	['0013-users-provisioning', usersProvisioning],
	['0014-enrollment-due-dates', enrollmentDueDates],
	['0015-webhook-owners-and-sealed-secrets', webhookOwners],
	['0017-sign-in-clients-and-devices', signInClientsAndDevices],
	['0018-webhook-delivery-exchanges', webhookDeliveryExchanges],
	['0019-report-counters', reportCounters],
	['0020-api-key-expiry', apiKeyExpiry],
	['0021-webhook-deliveries-pending-by-endpoint', webhookDeliveriesPendingByEndpoint],
	['0024-webhook-delivery-attempts-and-key-grace', webhookDeliveryAttempts],
	['0023-groups-and-assignments', groupsAndAssignments],
	['0026-password-reset-links', passwordResetLinks],
	['0027-scim-deleted-users', scimDeletedUsers],
	['0022-user-usernames-and-profiles', userUsernamesAndProfiles],
];

/** Where umzug records the migrations applied. */
export const MIGRATIONS_TABLE = 'schema_migrations';

export function migrator({ sequelize }: Database): Umzug<QueryInterface> {
	return new Umzug({
		migrations: MIGRATIONS.map(([name, m]) => ({ name, up: m.up, down: m.down })),
		context: sequelize.getQueryInterface(),
		storage: new SequelizeStorage({ sequelize, tableName: MIGRATIONS_TABLE }),
		logger: undefined,
	});
}

/** Any constant shared by every instance: the PostgreSQL advisory lock that serialises migrations. */
const MIGRATION_LOCK_ID = 0x4c4d53; // "LMS"

/**
 * Applies pending migrations; returns the names applied. On PostgreSQL several instances may
 * start (and migrate) at once, so the run holds a session advisory lock: the first instance
 * migrates, the others wait and then find nothing to do. The lock lives on a session outside
 * the pool, so a pool of one connection cannot deadlock against it.
 */
export async function migrate(db: Database): Promise<string[]> {
	const run = async () => (await migrator(db).up()).map((m) => m.name);
	if (db.dialect !== 'postgres') return run();
	const session = await db.sessionOutsidePool();
	try {
		await session.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_ID]);
		return await run();
	} finally {
		// Ending the session releases the lock even if the unlock itself fails.
		await session.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_ID]).catch(() => undefined);
		await session.end();
	}
}
