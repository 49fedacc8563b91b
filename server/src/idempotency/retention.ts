import { Op } from 'sequelize';

import { database } from '../db';
import { writeTransaction } from '../db/write-transaction';
import { IdempotencyKey } from './model';

/** Small batches keep each delete short (on SQLite it holds the one write lock). */
const BATCH = 500;

/**
 * Removes keys past their 24 hours, found through the index on expires_at (a request never
 * waits for this: a claim treats an expired row as absent). Safe on several instances at once.
 * Returns how many it removed.
 */
export async function pruneIdempotencyKeys(now = new Date()): Promise<number> {
	let removed = 0;
	for (;;) {
		const rows = await IdempotencyKey.findAll({
			where: { expiresAt: { [Op.lt]: now } },
			attributes: ['id'],
			order: [['expiresAt', 'ASC']],
			limit: BATCH,
		});
		if (rows.length === 0) return removed;
		await writeTransaction(database(), (transaction) =>
			IdempotencyKey.destroy({ where: { id: rows.map((r) => r.id), expiresAt: { [Op.lt]: now } }, transaction }),
		);
		removed += rows.length;
	}
}
