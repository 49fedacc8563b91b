import { sqliteTimestamp as stored, toDate } from '../../server/src/db/reads';

/**
 * SQLite returns timestamps as the text Sequelize wrote (`2026-05-01 09:30:00.123 +00:00`); the
 * read path turns it back into the instant that was written, whatever the instant.
 */

test('every timestamp Sequelize stores in SQLite reads back as the same instant', () => {
	const instants = [
		new Date(0),
		new Date('2026-05-01T09:30:00.123Z'),
		new Date('2024-02-29T23:59:59.999Z'),
		new Date('2026-12-31T00:00:00.000Z'),
		new Date('0099-06-15T12:00:00.000Z'), // a year Date.UTC alone would read as 1999
		new Date('9999-12-31T23:59:59.999Z'),
	];
	// And a spread of others, reproducibly.
	let seed = 20261123;
	for (let i = 0; i < 2_000; i++) {
		seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
		instants.push(new Date(Date.UTC(2000, 0, 1) + (seed / 2 ** 31) * 60 * 365 * 86_400_000));
	}
	for (const instant of instants) {
		expect({ text: stored(instant), read: toDate(stored(instant))?.toISOString() }).toEqual({ text: stored(instant), read: instant.toISOString() });
	}
});

test('other offsets, no offset (UTC) and ISO text read as Date reads them', () => {
	expect(toDate('2026-05-01 09:30:00.123 +02:00')?.toISOString()).toBe('2026-05-01T07:30:00.123Z');
	expect(toDate('2026-05-01 09:30:00')?.toISOString()).toBe('2026-05-01T09:30:00.000Z');
	expect(toDate('2026-05-01T09:30:00.123Z')?.toISOString()).toBe('2026-05-01T09:30:00.123Z');
	expect(toDate(null)).toBeNull();
	expect(Number.isNaN(toDate('2026-05-01 09:3x:00.123 +00:00')?.getTime())).toBe(true);
});
