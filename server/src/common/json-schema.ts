import { ID_PATTERNS } from './id-shapes';

/**
 * The pieces every response schema (JSON Schema 2020-12, as OpenAPI 3.1 uses) is built from: each
 * resource's schema sits next to its serializer (users/schema.ts…), the OpenAPI document
 * (openapi/document.ts) gathers them, and test/server/serializer-schemas.test.ts checks the
 * serializers' real output against them.
 */

export const timestamp = { type: 'string', format: 'date-time', pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z$' };
export const nullableTimestamp = { type: ['string', 'null'], format: 'date-time', pattern: timestamp.pattern };
const idSchema = (pattern: RegExp, example: string) => ({ type: 'string', pattern: pattern.source, examples: [example] });

/** The ids one resource's schema names of another. */
export const ids = {
	user: idSchema(ID_PATTERNS.user, 'usr_4Jq2bX9mKc7LtPz1'),
	course: idSchema(ID_PATTERNS.course, 'crs_8fYt2QwLm3NcZr6V'),
	enrollment: idSchema(ID_PATTERNS.enrollment, 'enr_2mZ8cRk4Tq9XbW1n'),
	certificate: idSchema(ID_PATTERNS.certificate, 'cert_7Hd3pLx9Qa2Vn5Ks'),
	group: idSchema(ID_PATTERNS.group, 'grp_3Rk8mPq2Lx7VnT4c'),
	assignment: idSchema(ID_PATTERNS.assignment, 'asg_9Wc2Hn5Tq8Lm3Kx7'),
};

/** A count of records: a whole number, never negative. */
export const count = { type: 'integer', minimum: 0 };

export function record(properties: Record<string, object>, description: string) {
	return { type: 'object', description, additionalProperties: false, required: Object.keys(properties), properties };
}

/** Properties an item carries only when asked (`expand=`): in `properties`, not in `required`. */
export function withOptional<T extends { properties: Record<string, object> }>(schema: T, properties: Record<string, object>): T {
	return { ...schema, properties: { ...schema.properties, ...properties } };
}
