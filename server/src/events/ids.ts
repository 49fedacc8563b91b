import { createHash } from 'node:crypto';

/**
 * An event's id (SPEC §11, issue 39): `evt_` + the organization's tag (12 hex) + the event's
 * number in its organization (16 decimal digits). Numbers count one organization's events only,
 * 1, 2, 3…, so the ids an organization reads tell nothing of how many events the others write;
 * the tag only keeps ids unique across organizations (and is the same for every event of one).
 *
 * The tag is md5 of the organization id, its first digit made `1`: ids made before this scheme
 * start with `0` (`evt_` + zeros on SQLite, + a transaction id on PostgreSQL), so every new id of
 * an organization sorts after its old ones and a cursor kept over the upgrade misses nothing.
 * PostgreSQL computes the same tag in SQL (events/queries.ts TAG_SQL).
 */
export function organizationTag(organizationId: string): string {
	return `1${createHash('md5').update(organizationId).digest('hex').slice(0, 11)}`;
}

/** The ids of one organization's numbered events lie in [`evt_<tag>`, `evt_<tag>g`): `g` sorts after every hex digit. */
export const numberedRange = (tag: string): [string, string] => [`evt_${tag}`, `evt_${tag}g`];

/** Ids made before numbering: below every tag. */
export const OLD_IDS: [string, string] = ['evt_', 'evt_1'];
