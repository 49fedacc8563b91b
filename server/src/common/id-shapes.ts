/**
 * What a public id looks like, per resource. Query filters and path ids are checked against
 * these before any query, and the OpenAPI document publishes the same patterns.
 */
export const ID_PATTERNS = {
	user: /^usr_[A-Za-z0-9]{1,36}$/,
	course: /^crs_[A-Za-z0-9]{1,36}$/,
	enrollment: /^enr_[A-Za-z0-9]{1,36}$/,
	certificate: /^cert_[A-Za-z0-9]{1,35}$/,
	webhookEndpoint: /^whe_[A-Za-z0-9]{1,36}$/,
	webhookDelivery: /^whd_[A-Za-z0-9]{1,36}$/,
	group: /^grp_[A-Za-z0-9]{1,36}$/,
	assignment: /^asg_[A-Za-z0-9]{1,36}$/,
} as const;

export type IdKind = keyof typeof ID_PATTERNS;

export function isIdOf(kind: IdKind, value: unknown): value is string {
	return typeof value === 'string' && ID_PATTERNS[kind].test(value);
}
