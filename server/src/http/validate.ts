import Joi from 'joi';

import { ID_PATTERNS, type IdKind } from '../common/id-shapes';
import { clip, problems, type FieldError } from '../common/problem';
import { isDateTime } from '../common/time';


/**
 * Joi does the checking; this module turns its findings into the API's `errors[]` entries
 * (one per problem, each naming the parameter) and a 400 `invalid_request`.
 */

type Location = 'query' | 'body';

/** Stable per-entry codes, from Joi's error types. */
function entryCode(detail: Joi.ValidationErrorItem, where: Location): string {
	switch (detail.type) {
		case 'object.unknown':
			return where === 'query' ? 'unknown_parameter' : 'unknown_field';
		case 'any.required':
		case 'object.missing':
			return 'required';
		case 'string.base':
		case 'object.base':
		case 'number.base':
			return 'invalid_type';
		case 'number.integer':
			return 'invalid_integer';
		case 'number.min':
		case 'number.max':
			return 'out_of_range';
		case 'string.empty':
			return 'empty';
		case 'any.only':
			return 'invalid_value';
		case 'number.range':
			return 'out_of_range';
		case 'string.pattern.name':
			return detail.context?.name === 'integer' ? 'invalid_integer' : 'invalid_format';
		default:
			return 'invalid_format';
	}
}

function entryMessage(detail: Joi.ValidationErrorItem, where: Location, allowed: string[]): string {
	const name = String(detail.context?.key ?? detail.path.join('.'));
	if (detail.type === 'object.unknown') return unknownEntry(name, where, allowed).message;
	return detail.message.endsWith('.') ? detail.message : `${detail.message}.`;
}

const MESSAGES: Joi.LanguageMessages = {
	'any.required': '{{#label}} is required',
	'string.base': '{{#label}} must be a string',
	'string.empty': '{{#label}} must not be empty',
	'object.base': 'The body must be a JSON object',
	'any.only': '{{#label}} must be one of {{#valids}}',
	'string.pattern.name': '{{#label}} must be {{#name}}',
};

const PREFERENCES: Joi.ValidationOptions = {
	abortEarly: false,
	convert: true,
	messages: MESSAGES,
	errors: { wrap: { label: false, array: false } },
};

/**
 * The schema with our preferences baked in, made once per schema: options passed to validate()
 * are merged and their message templates compiled again on every call (≈ 5 % of a list request).
 */
const prepared = new WeakMap<Joi.ObjectSchema, Joi.ObjectSchema>();

function withPreferences<T>(schema: Joi.ObjectSchema<T>): Joi.ObjectSchema<T> {
	let found = prepared.get(schema);
	if (!found) {
		found = schema.prefs(PREFERENCES);
		prepared.set(schema, found);
	}
	return found as Joi.ObjectSchema<T>;
}

const allowedKeys = new WeakMap<Joi.ObjectSchema, string[]>();

function keysOf(schema: Joi.ObjectSchema): string[] {
	let keys = allowedKeys.get(schema);
	if (!keys) {
		keys = Object.keys((schema.describe().keys ?? {}) as Record<string, unknown>);
		allowedKeys.set(schema, keys);
	}
	return keys;
}

/**
 * Names that JavaScript objects treat specially (`__proto__`, `constructor`, `prototype`, and
 * every other member of Object.prototype such as `toString`). Express's query parser and
 * JSON.parse both produce them as own keys, and Joi's copy of the input quietly drops
 * `__proto__`, so they are taken out here and refused by name, like any other unknown parameter.
 */
const isReservedName = (name: string) => name === 'prototype' || name in Object.prototype;

function withoutReservedNames(value: unknown, allowed: string[]): { rest: unknown; reserved: string[] } {
	if (typeof value !== 'object' || value === null || Array.isArray(value)) return { rest: value, reserved: [] };
	const refused = (name: string) => isReservedName(name) && !allowed.includes(name);
	const reserved = Object.keys(value).filter(refused);
	if (reserved.length === 0) return { rest: value, reserved };
	return { rest: Object.fromEntries(Object.entries(value).filter(([k]) => !refused(k))), reserved };
}

function unknownEntry(name: string, where: Location, allowed: string[]): FieldError {
	return {
		param: name,
		code: where === 'query' ? 'unknown_parameter' : 'unknown_field',
		message:
			where === 'query'
				? `Unknown query parameter ${clip(name)}: this endpoint accepts ${allowed.length ? allowed.join(', ') : 'no query parameters'}.`
				: `Unknown field ${clip(name)}: send only ${allowed.join(' and ')}.`,
	};
}

function check<T>(schema: Joi.ObjectSchema<T>, value: unknown, where: Location, preErrors: FieldError[] = []): T {
	const allowed = keysOf(schema);
	const { rest, reserved } = withoutReservedNames(value, allowed);
	const result = withPreferences(schema).validate(rest);
	if (!result.error && preErrors.length === 0 && reserved.length === 0) return result.value;
	const errors = [...preErrors, ...reserved.map((name) => unknownEntry(name, where, allowed))];
	for (const d of result.error?.details ?? []) {
		const param = d.path.length > 0 ? d.path.join('.') : String(d.context?.key ?? 'body');
		// Joi reports every rule a value breaks; the caller needs the first, once per parameter.
		if (errors.some((e) => e.param === param)) continue;
		errors.push({ param, code: entryCode(d, where), message: entryMessage(d, where, allowed) });
	}
	if (errors.length > 0 || result.error) throw problems.invalidRequest(errors);
	return result.value;
}

const DIGITS = /^\d{1,15}$/;

/** The parameters a query accepts, by name, each with its Joi rule. */
export type QuerySchema = Record<string, Joi.Schema>;

interface QueryRule {
	/** The parameter's rule as a one-key object schema with our preferences. */
	check: Joi.Schema;
}

/**
 * Each parameter's rule as a one-key object schema with our preferences (so its label, path and
 * its own messages are exactly what a schema over the whole query gave), and the list of names,
 * made once per schema.
 */
const preparedQueries = new WeakMap<QuerySchema, { rules: Map<string, QueryRule>; allowed: string[] }>();

function queryRules(schema: QuerySchema): { rules: Map<string, QueryRule>; allowed: string[] } {
	let prepared = preparedQueries.get(schema);
	if (!prepared) {
		const rules = new Map(
			Object.entries(schema).map(([name, rule]) => [
				name,
				{ check: Joi.object({ [name]: rule }).prefs(PREFERENCES) },
			]),
		);
		prepared = { rules, allowed: [...rules.keys()] };
		preparedQueries.set(schema, prepared);
	}
	return prepared;
}

/**
 * Query strings are strict: every parameter must be one the endpoint names, and given once (a
 * parameter given twice arrives as an array from Express's simple parser), except those made by
 * repeatableParam. Each parameter is
 * checked by its own rule, which is all a flat query needs: an object schema over the query
 * would copy it and walk every named key on each request, the larger part of validating a list.
 * Problems are listed as for a body: repeated, then names JavaScript reserves, then the named
 * parameters in the schema's order, then other unknown names.
 */
/** Rules made by repeatableParam: the one kind of parameter that may be given more than once. */
const repeatable = new WeakSet<Joi.Schema>();

/**
 * A parameter that may be given up to `max` times (`external_id=a&external_id=b`), for values
 * that may hold commas, so a comma list cannot carry them: once, it is `one`'s value; repeated,
 * the handler gets the list (each value checked by `one`).
 */
export function repeatableParam(one: Joi.Schema, max: number, description: string): Joi.AlternativesSchema {
	// Joi's schemas are immutable: the rule kept is the last one made, description included.
	const rule = Joi.alternatives()
		.try(one, Joi.array().items(one).max(max))
		.messages({ 'array.max': `{{#label}} is given more than ${max} times: give it at most ${max} times in one request` })
		.description(description);
	repeatable.add(rule);
	return rule;
}

export function parseQuery<T>(schema: QuerySchema, query: Record<string, unknown>): T {
	const { rules, allowed } = queryRules(schema);
	const repeated: FieldError[] = [];
	const reserved: FieldError[] = [];
	const unknown: FieldError[] = [];
	const mayRepeat = (name: string) => Object.hasOwn(schema, name) && repeatable.has(schema[name]);
	for (const name of Object.keys(query)) {
		if (Array.isArray(query[name]) && !mayRepeat(name)) {
			repeated.push({ param: name, code: 'repeated_parameter', message: `Give ${clip(name)} once; it appears more than once in the query string.` });
		} else if (!rules.has(name)) {
			(isReservedName(name) ? reserved : unknown).push(unknownEntry(name, 'query', allowed));
		}
	}
	const invalid: FieldError[] = [];
	const parsed: Record<string, unknown> = {};
	for (const [name, { check }] of rules) {
		const value = Object.hasOwn(query, name) ? query[name] : undefined;
		if (value === undefined || (Array.isArray(value) && !mayRepeat(name))) continue;
		const result: Joi.ValidationResult<Record<string, unknown>> = check.validate({ [name]: value });
		if (result.error) {
			const detail = result.error.details[0];
			invalid.push({ param: name, code: entryCode(detail, 'query'), message: entryMessage(detail, 'query', allowed) });
		} else parsed[name] = result.value[name];
	}
	const errors = [...repeated, ...reserved, ...invalid, ...unknown];
	if (errors.length > 0) throw problems.invalidRequest(errors);
	return parsed as T;
}

export function parseBody<T>(schema: Joi.ObjectSchema<T>, body: unknown): T {
	return check(schema, body, 'body');
}

/**
 * A query integer written in plain digits (no sign, decimals, exponent or hex) within a range;
 * `fallback` is what the handler takes when it is left out (for the document).
 */
export function integerParam(min: number, max: number, description: string, fallback?: number): Joi.StringSchema {
	const message = `{{#label}} must be an integer from ${min} to ${max}`;
	const rule = Joi.string()
		.pattern(DIGITS, 'integer')
		.custom((value: string, helpers) => {
			const n = Number(value);
			return n < min || n > max ? helpers.error('number.range') : n;
		})
		.messages({ 'string.pattern.name': message, 'string.empty': message, 'number.range': message })
		.description(description)
		.meta({ openapi: { type: 'integer', minimum: min, maximum: max, ...(fallback === undefined ? {} : { default: fallback }) } });
	return rule;
}

const ID_NAMES: Record<IdKind, string> = {
	user: 'a user id (usr_…)',
	course: 'a course id (crs_…)',
	enrollment: 'an enrollment id (enr_…)',
	certificate: 'a certificate id (cert_…)',
	webhookEndpoint: 'a webhook endpoint id (whe_…)',
	webhookDelivery: 'a webhook delivery id (whd_…)',
	group: 'a group id (grp_…)',
	assignment: 'an assignment id (asg_…)',
};

/** A filter holding one resource id, checked for shape before any query. */
export function idParam(kind: IdKind): Joi.StringSchema {
	return Joi.string().pattern(ID_PATTERNS[kind], ID_NAMES[kind]);
}

/** A query parameter or body field holding such a date-time (still a string: callers make the Date). */
export const dateTimeParam = (): Joi.StringSchema =>
	Joi.string()
		.custom((value: string, helpers) => (isDateTime(value) ? value : helpers.error('string.dateTime')))
		.messages({ 'string.dateTime': '{{#label}} must be an ISO 8601 date-time with an offset, such as 2026-05-01T00:00:00Z' })
		.meta({ openapi: { format: 'date-time' } });
