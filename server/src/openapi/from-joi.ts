import type Joi from 'joi';
import parse from 'joi-to-json';

import type { QuerySchema } from '../http/validate';

/**
 * The request side of the document, made from the Joi schemas the server validates with, so
 * the two cannot drift. joi-to-json does the conversion; `refine` adds what it cannot see:
 * - a rule written as `custom()` (a digits-only integer, a date-time, an e-mail) states its
 *   JSON Schema in an `openapi` meta, which is merged in (a meta that changes the type drops the
 *   string keywords the digits pattern gave);
 * - an inverted pattern (plainText's "no control characters") becomes `not: { pattern }`, and a
 *   pattern's flags are dropped (joi-to-json reads `/…/u` as if the pattern had to match, with
 *   the flag left in it);
 * - Joi refuses an empty string unless it is allowed: such a string has `minLength: 1` (unless a
 *   pattern, format or enum already says so).
 */

export type JsonSchema = Record<string, unknown>;

/** One JSON Schema meta for what a rule checks in code (`.meta({ openapi: { format: 'date-time' } })`). */
interface OpenApiMeta {
	openapi: JsonSchema;
}

/** Joi's public description of a schema (`schema.describe()`), as far as refine reads it. */
interface Described {
	type: string;
	allow?: unknown[];
	metas?: Array<Partial<OpenApiMeta>>;
	rules?: Array<{ name: string; args?: { regex?: string; options?: { invert?: boolean } } }>;
	keys?: Record<string, Described>;
	items?: Described[];
	flags?: { presence?: string; description?: string };
}

const STRING_KEYWORDS = ['pattern', 'minLength', 'maxLength'];

/** `/source/flags` as describe() writes a RegExp → its source. */
const sourceOf = (regex: string) => regex.slice(1, regex.lastIndexOf('/'));

function refine(schema: JsonSchema, described: Described): JsonSchema {
	if (described.type === 'string') {
		const pattern = described.rules?.find((rule) => rule.name === 'pattern')?.args;
		if (pattern?.regex !== undefined) {
			delete schema.pattern;
			if (pattern.options?.invert) schema.not = { pattern: sourceOf(pattern.regex) };
			else schema.pattern = sourceOf(pattern.regex);
		}
	}
	for (const meta of described.metas ?? []) {
		if (!meta.openapi) continue;
		if (meta.openapi.type !== undefined && meta.openapi.type !== described.type) STRING_KEYWORDS.forEach((k) => delete schema[k]);
		Object.assign(schema, meta.openapi);
	}
	if ([schema.type].flat().includes('string') && !described.allow?.includes('')) {
		if (['minLength', 'pattern', 'format', 'enum'].every((k) => schema[k] === undefined)) schema.minLength = 1;
	}
	const properties = schema.properties as Record<string, JsonSchema> | undefined;
	for (const [name, key] of Object.entries(described.keys ?? {})) refine(properties![name], key);
	if (described.items?.length === 1) refine(schema.items as JsonSchema, described.items[0]);
	return schema;
}

/** The JSON Schema (OpenAPI 3.1) of a Joi schema. */
export function schemaOf(schema: Joi.Schema): JsonSchema {
	return refine(parse(schema, 'open-api-3.1') as JsonSchema, schema.describe() as Described);
}

/**
 * The query parameters of a QuerySchema, in its order, each described by its Joi schema's
 * `.description()`. A parameter whose Joi schema is one of `shared` (page, per_page) refers to
 * the document's components.parameters entry of that name.
 */
export function queryParameters(query: QuerySchema, shared: QuerySchema = {}): object[] {
	return Object.entries(query).map(([name, rule]) => (shared[name] === rule ? { $ref: `#/components/parameters/${name}` } : queryParameter(name, rule)));
}

export function queryParameter(name: string, rule: Joi.Schema): object {
	const { description, ...schema } = schemaOf(rule);
	return { name, in: 'query', required: (rule.describe() as Described).flags?.presence === 'required', description, schema };
}

/**
 * A JSON request body. Always required: every write refuses a request without
 * `Content-Type: application/json` (415, http/json-body.ts), even one whose schema takes `{}`.
 */
export function requestBody(schema: Joi.Schema, jsonSchema: object = schemaOf(schema)): object {
	return { required: true, content: { 'application/json': { schema: jsonSchema } } };
}
