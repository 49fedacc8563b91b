import { isInGrace, scopeList } from './model';
import type { KeyDescriptionRow } from './queries';

/** The calling key as GET /api/v1/key shows it (SPEC §19): never its secret or its digest. */
export function serializeCurrentKey(row: KeyDescriptionRow) {
	return {
		id: row.id,
		label: row.label,
		scopes: scopeList(row.scopes),
		// Only when the key has one (issue 30): a client can plan the switch before the date.
		...(row.expiresAt === null ? {} : { expires_at: new Date(row.expiresAt).toISOString() }),
		// Null unless this is a rotated key still working (SPEC §22): the date it stops.
		grace_until: isInGrace(row.status, row.graceUntil) ? new Date(row.graceUntil!).toISOString() : null,
		organization: { id: row.organizationId, name: row.organizationName, slug: row.organizationSlug },
	};
}
