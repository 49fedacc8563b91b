import Joi from 'joi';

import { ID_PATTERNS, type IdKind } from '../common/id-shapes';
import { clip, problems, type FieldError } from '../common/problem';

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
	const entries = Object.entries(value);
	const reserved = entries.map(([k]) => k).filter(refused);
	if (reserved.length === 0) return { rest: value, reserved };
	return { rest: Object.fromEntries(entries.filter(([k]) => !refused(k))), reserved };
}

function unknownEntry(name: string, where: Location, allowed: string[]): FieldError {
	return {
		param: name,
		code: where === 'query' ? 'unknown_parameter' : 'unknown_field',
		message:
			where === 'query'
				? `Unknown query parameter ${clip(name)}: this endpoint accepts ${allowed.join(', ')}.`
				: `Unknown field ${clip(name)}: send only ${allowed.join(' and ')}.`,
	};
}

function check<T>(schema: Joi.ObjectSchema<T>, value: unknown, where: Location, preErrors: FieldError[] = []): T {
	const allowed = keysOf(schema);
	const { rest, reserved } = withoutReservedNames(value, allowed);
	preErrors = [...preErrors, ...reserved.map((name) => unknownEntry(name, where, allowed))];
	const result = schema.validate(rest, {
		abortEarly: false,
		convert: true,
		messages: MESSAGES,
		errors: { wrap: { label: false, array: false } },
	});
	const errors = [...preErrors];
	for (const d of result.error?.details ?? []) {
		const param = d.path.length > 0 ? d.path.join('.') : String(d.context?.key ?? 'body');
		// Joi reports every rule a value breaks; the caller needs the first, once per parameter.
		if (errors.some((e) => e.param === param)) continue;
		errors.push({ param, code: entryCode(d, where), message: entryMessage(d, where, allowed) });
	}
	if (errors.length > 0 || result.error) throw problems.invalidRequest(errors);
	return result.value;
}

/**
 * Query strings are strict: a parameter given twice arrives as an array (Express's simple
 * parser) and is refused by name before Joi sees the rest.
 */
export function parseQuery<T>(schema: Joi.ObjectSchema<T>, query: Record<string, unknown>): T {
	const repeated = Object.keys(query).filter((k) => Array.isArray(query[k]));
	const single = Object.fromEntries(Object.entries(query).filter(([k]) => !repeated.includes(k)));
	const preErrors = repeated.map((param) => ({
		param,
		code: 'repeated_parameter',
		message: `Give ${clip(param)} once; it appears more than once in the query string.`,
	}));
	return check(schema, single, 'query', preErrors);
}

export function parseBody<T>(schema: Joi.ObjectSchema<T>, body: unknown): T {
	return check(schema, body, 'body');
}

/** A query integer written in plain digits (no sign, decimals, exponent or hex) within a range. */
export function integerParam(min: number, max: number): Joi.StringSchema {
	const message = `{{#label}} must be an integer from ${min} to ${max}`;
	return Joi.string()
		.pattern(/^\d{1,15}$/, 'integer')
		.custom((value: string, helpers) => {
			const n = Number(value);
			return n < min || n > max ? helpers.error('number.range') : n;
		})
		.messages({ 'string.pattern.name': message, 'string.empty': message, 'number.range': message });
}

const ID_NAMES: Record<IdKind, string> = {
	user: 'a user id (usr_…)',
	course: 'a course id (crs_…)',
	enrollment: 'an enrollment id (enr_…)',
	certificate: 'a certificate id (cert_…)',
	webhookEndpoint: 'a webhook endpoint id (whe_…)',
};

/** A filter holding one resource id, checked for shape before any query. */
export function idParam(kind: IdKind): Joi.StringSchema {
	return Joi.string().pattern(ID_PATTERNS[kind], ID_NAMES[kind]);
}
