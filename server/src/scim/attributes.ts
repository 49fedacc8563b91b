import { scimErrors } from './errors';

/**
 * `attributes=` and `excludedAttributes=` (RFC 7644 §3.4.2.5, §3.9): which attributes an answer
 * carries. Names in any case, comma-separated, `name` or `name.givenName`; `id` and `schemas`
 * are always returned. Bounded like a filter (1,000 characters) before anything reads it.
 */

type Resource = Record<string, unknown>;
export type Projection = (resource: Resource) => Resource;

const ALWAYS = new Set(['id', 'schemas']);
const CORE_PREFIX = 'urn:ietf:params:scim:schemas:core:2.0:user:';
const ENTERPRISE_URN = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:user';

function names(text: string, parameter: string): Array<[string, string | undefined]> {
	if (text.length > 1000) throw scimErrors.invalidValue(`${parameter} is longer than 1000 characters.`);
	return text
		.split(',')
		.map((name) => name.trim().toLowerCase())
		.filter((name) => name !== '')
		.map((name) => (name.startsWith(CORE_PREFIX) ? name.slice(CORE_PREFIX.length) : name))
		.map((name): [string, string | undefined] => {
			// The enterprise extension's attributes are sub-attributes of its URN (`…:User:department`, `…:User:manager.value`).
			if (name === ENTERPRISE_URN) return [name, undefined];
			if (name.startsWith(`${ENTERPRISE_URN}:`)) return [ENTERPRISE_URN, name.slice(ENTERPRISE_URN.length + 1).split('.')[0]];
			const dot = name.indexOf('.');
			return dot === -1 ? [name, undefined] : [name.slice(0, dot), name.slice(dot + 1)];
		});
}

/** The value under `key` matched without case. */
const keyOf = (object: Resource, lower: string) => Object.keys(object).find((k) => k.toLowerCase() === lower);

function only(resource: Resource, wanted: Array<[string, string | undefined]>): Resource {
	const out: Resource = {};
	for (const [key, value] of Object.entries(resource)) {
		const lower = key.toLowerCase();
		if (ALWAYS.has(lower)) out[key] = value;
		const asked = wanted.filter(([top]) => top === lower);
		if (asked.length === 0) continue;
		if (asked.some(([, sub]) => sub === undefined) || value === null || typeof value !== 'object') {
			out[key] = value;
			continue;
		}
		const pick = (item: Resource) => Object.fromEntries(asked.map(([, sub]) => keyOf(item, sub!)).filter((k) => k !== undefined).map((k) => [k, item[k]]));
		out[key] = Array.isArray(value) ? value.map((item) => pick(item as Resource)) : pick(value as Resource);
	}
	return out;
}

function without(resource: Resource, excluded: Array<[string, string | undefined]>): Resource {
	const out: Resource = { ...resource };
	for (const [top, sub] of excluded) {
		const key = keyOf(out, top);
		if (key === undefined || ALWAYS.has(top)) continue;
		const value = out[key];
		if (sub === undefined) delete out[key];
		else if (Array.isArray(value)) out[key] = value.map((item) => Object.fromEntries(Object.entries(item as Resource).filter(([k]) => k.toLowerCase() !== sub)));
		else if (value !== null && typeof value === 'object') out[key] = Object.fromEntries(Object.entries(value as Resource).filter(([k]) => k.toLowerCase() !== sub));
	}
	return out;
}

/** The projection a request asks for (its query); without either parameter, the resource whole. */
export function projectionOf(query: Record<string, unknown>): Projection {
	const attributes = query.attributes;
	const excluded = query.excludedAttributes;
	if (attributes !== undefined && typeof attributes !== 'string') throw scimErrors.invalidValue('Give attributes once, comma-separated.');
	if (excluded !== undefined && typeof excluded !== 'string') throw scimErrors.invalidValue('Give excludedAttributes once, comma-separated.');
	if (attributes !== undefined && attributes.trim() !== '') {
		const wanted = names(attributes, 'attributes');
		return (resource) => only(resource, wanted);
	}
	if (excluded !== undefined && excluded.trim() !== '') {
		const unwanted = names(excluded, 'excludedAttributes');
		return (resource) => without(resource, unwanted);
	}
	return (resource) => resource;
}
