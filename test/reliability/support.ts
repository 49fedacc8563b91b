import { Agent, request } from 'node:http';

import { SCOPES } from '../../server/src/api-keys/model';
import { Certificate, Course, Enrollment, Organization, User } from '../../server/src/db';
import type { TestServer } from '../helpers/server';

/**
 * Shared by the reliability suites: a raw HTTP client (fetch refuses many of the odd requests
 * these suites send on purpose), the problem+json contract, and the ids of one organization.
 */

export interface RawRequest {
	method: string;
	/** Sent exactly as given: path and query string, already percent-encoded where needed. */
	path: string;
	headers?: Record<string, string>;
	body?: string | Buffer;
	/** Send the body with Transfer-Encoding: chunked instead of a Content-Length. */
	chunked?: boolean;
}

export interface RawReply {
	status: number;
	headers: Record<string, string | string[] | undefined>;
	text: string;
	/** Date.now() just before the request was handed to the socket layer. */
	sentAt: number;
}

/** Keep-alive, a few sockets: fast enough for thousands of requests, like a real client. */
const keepAliveAgent = new Agent({ keepAlive: true, maxSockets: 32 });

export function send(baseUrl: string, req: RawRequest, agent: Agent = keepAliveAgent): Promise<RawReply> {
	const url = new URL(baseUrl);
	const headers: Record<string, string | number> = { ...req.headers };
	// Node frames a GET's body only when told to: without either header its bytes would be read
	// as the next request on the connection.
	if (req.body !== undefined) {
		if (req.chunked) headers['transfer-encoding'] = 'chunked';
		else headers['content-length'] = Buffer.byteLength(req.body);
	}
	return new Promise((resolve, reject) => {
		const sentAt = Date.now();
		const outgoing = request(
			{ host: url.hostname, port: url.port, method: req.method, path: req.path, headers, agent },
			(res) => {
				const chunks: Buffer[] = [];
				res.on('data', (chunk: Buffer) => chunks.push(chunk));
				res.on('end', () =>
					resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8'), sentAt }),
				);
				res.on('error', reject);
			},
		);
		outgoing.on('error', reject);
		if (req.body !== undefined) outgoing.write(req.body);
		outgoing.end();
	});
}

/** JSON.parse that answers undefined instead of throwing. */
export function parseJson(text: string): unknown {
	try {
		return JSON.parse(text);
	} catch {
		return undefined;
	}
}

/** SPEC §4's members: what a client may rely on in every error. */
const PROBLEM_MEMBERS = ['type', 'title', 'status', 'detail', 'code', 'request_id'] as const;

/** What is wrong with a reply that should be a problem document, or undefined when nothing is. */
export function problemDefect(reply: RawReply, method: string): string | undefined {
	if (reply.headers['content-type'] !== 'application/problem+json') {
		return `content-type is ${String(reply.headers['content-type'])}, not application/problem+json`;
	}
	if (method === 'HEAD') return undefined;
	const body = parseJson(reply.text) as Record<string, unknown> | undefined;
	if (!body || typeof body !== 'object') return 'the body is not a JSON object';
	for (const member of PROBLEM_MEMBERS) {
		if (typeof body[member] !== (member === 'status' ? 'number' : 'string')) return `member ${member} is missing or mistyped`;
	}
	if (body.status !== reply.status) return `status member ${String(body.status)} differs from HTTP ${reply.status}`;
	if (body.request_id !== reply.headers['x-request-id']) return 'request_id differs from X-Request-Id';
	if (body.errors !== undefined) {
		const entries = body.errors as Array<Record<string, unknown>>;
		if (!Array.isArray(entries) || entries.length === 0) return 'errors is not a non-empty array';
		for (const entry of entries) {
			if (!['param', 'code', 'message'].every((k) => typeof entry?.[k] === 'string')) return 'an errors[] entry lacks param/code/message';
		}
	}
	return undefined;
}

/** Internals that must never reach a client: stack frames, driver errors, module paths. */
export const LEAK = /\n\s+at .+:\d+:\d+|node_modules|SQLITE_|Sequelize[A-Z]\w*Error|syntax error at or near|duplicate key value/;

export interface OrgRecords {
	organization: Organization;
	/** A key with all four scopes. */
	key: string;
	keyId: string;
	students: User[];
	staff: User[];
	publishedCourses: Course[];
	draftCourses: Course[];
	enrollments: Enrollment[];
	certificates: Certificate[];
}

/** An organization's records as the database holds them, and a fresh all-scope key for it. */
export async function recordsOf(server: TestServer, slug: string): Promise<OrgRecords> {
	const organization = await Organization.findOne({ where: { slug } });
	if (!organization) throw new Error(`no organization ${slug}`);
	const organizationId = organization.id;
	const [users, courses, enrollments, certificates] = await Promise.all([
		User.findAll({ where: { organizationId }, order: [['createdAt', 'ASC'], ['id', 'ASC']] }),
		Course.findAll({ where: { organizationId }, order: [['createdAt', 'ASC'], ['id', 'ASC']] }),
		Enrollment.findAll({ where: { organizationId }, order: [['createdAt', 'ASC'], ['id', 'ASC']] }),
		Certificate.findAll({ where: { organizationId }, order: [['createdAt', 'ASC'], ['id', 'ASC']] }),
	]);
	const { id: keyId, key } = organization.plan === 'enterprise'
		? await server.createKey(slug, [...SCOPES], 'reliability')
		: { id: '', key: '' };
	return {
		organization,
		key,
		keyId,
		students: users.filter((u) => u.role === 'student'),
		staff: users.filter((u) => u.role !== 'student'),
		publishedCourses: courses.filter((c) => c.status === 'published'),
		draftCourses: courses.filter((c) => c.status !== 'published'),
		enrollments,
		certificates,
	};
}
