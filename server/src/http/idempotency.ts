import { createHash } from 'node:crypto';

import type { Request, RequestHandler, Response } from 'express';
import stringify from 'safe-stable-stringify';

import { problems } from '../common/problem';
import { claimKey, keepAnswer, releaseKey, type KeyedRequest } from '../idempotency/keys';
import { answerOf, sendAnswerText, type Answer, type WriteHandler, type WriteRequest } from './answer';
import { callerOf, originOf } from './auth';
import { requestIdOf } from './request-id';

/**
 * `Idempotency-Key` on every POST and PATCH of /api/v1 (SPEC §18), after Stripe's and the IETF
 * draft "The Idempotency-Key HTTP Header Field": the first answer is kept 24 hours per
 * organization and key and replayed to a retry of the same request; docs/api.md says what is kept.
 */

const HEADER = 'Idempotency-Key';
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;
/** The draft's form: a Structured Field string (RFC 8941), `"…"` with `\"` and `\\` escapes. */
const SF_STRING = /^"((?:[\x20\x21\x23-\x5b\x5d-\x7e]|\\["\\])*)"$/;

/**
 * The request's key, checked (guard step, after the scope): undefined without the header, a 400
 * naming it when it is not 1–255 printable ASCII characters. Stripe's bare value and the draft's
 * quoted string are both read; `"abc"` and `abc` are the same key.
 */
export function idempotencyKeyOf(req: Request): string | undefined {
	// Node joins a repeated header with ", " into one value, which is then checked as one key.
	const raw = req.get(HEADER);
	if (raw === undefined) return undefined;
	const quoted = SF_STRING.exec(raw);
	const key = quoted ? quoted[1].replace(/\\(["\\])/g, '$1') : raw;
	let problem: string | undefined;
	if (key.length === 0) problem = 'it is empty';
	else if (key.length > 255) problem = `it has ${key.length} characters`;
	else if (!PRINTABLE_ASCII.test(key)) problem = 'it holds a control or non-ASCII character';
	if (problem === undefined) return key;
	throw problems.invalidRequest([
		{
			param: HEADER,
			code: key.length > 255 ? 'too_long' : key.length === 0 ? 'empty' : 'invalid_format',
			message: `${HEADER} must be 1 to 255 printable ASCII characters (a UUID is a good key); ${problem}.`,
		},
	]);
}

/** Method, path (with any query) and the body as canonical JSON (key order and spacing do not count). */
export function requestFingerprint(method: string, url: string, body: unknown): string {
	return createHash('sha256')
		.update(`${method} ${url}\n${stringify(body) ?? ''}`)
		.digest('hex');
}

const PROBLEM_TYPE = 'application/problem+json';

/** A kept problem names the request answering it, as every problem does (its X-Request-Id). */
function withRequestId(problemText: string, requestId: string): string {
	const problem = JSON.parse(problemText) as Record<string, unknown>;
	problem.request_id = requestId;
	return JSON.stringify(problem);
}

/**
 * 400s change nothing and are not the request's outcome; 5xx are ours, and a retry should run
 * again. A batch that changed nothing is not kept either (issue 39 L3: a re-run of 100 items that
 * all exist or are all refused kept 41.6 KB for 24 hours): its retry runs again and answers the
 * same, since nothing moved, and a retry after something did move should see it.
 */
function isKept(answer: Answer): boolean {
	return answer.status !== 400 && answer.status < 500 && answer.failure === undefined && answer.unchanged === undefined;
}

function send(res: Response, answer: Answer): void {
	if (answer.failure !== undefined) (res as Response & { err?: unknown }).err = answer.failure;
	sendAnswerText(res, answer.status, answer.headers, JSON.stringify(answer.body));
}

/**
 * The last step of every write: runs the operation and sends its answer. With an
 * Idempotency-Key (left on res.locals by the guard) the key is claimed first, so that of any
 * number of requests with it, on any instance, one runs; the others get its kept answer
 * (`Idempotent-Replayed: true`), or 409 while it runs, or 422 if they are another request.
 */
export function writeStep(handler: WriteHandler): RequestHandler {
	return async (req, res) => {
		const caller = callerOf(res);
		const request: WriteRequest = {
			body: req.body as unknown,
			params: req.params as Record<string, string>,
			caller,
			requestId: requestIdOf(req),
			origin: originOf(req),
		};
		const key = res.locals.idempotencyKey as string | undefined;
		if (key === undefined) {
			send(res, await answerOf(handler, request));
			return;
		}
		const keyed: KeyedRequest = { organizationId: caller.organization.id, key, method: req.method, path: req.originalUrl, fingerprint: requestFingerprint(req.method, req.originalUrl, req.body) };
		const claim = await claimKey(keyed);
		if (claim.replay) {
			const { status, headers, body } = claim.replay;
			res.setHeader('Idempotent-Replayed', 'true');
			sendAnswerText(res, status, headers, headers['Content-Type'] === PROBLEM_TYPE ? withRequestId(body, request.requestId) : body);
			return;
		}
		let answer: Answer;
		try {
			answer = await answerOf(handler, request);
		} catch (err) {
			await releaseKey(keyed, claim.token).catch(() => undefined);
			throw err;
		}
		try {
			if (isKept(answer)) {
				await keepAnswer(keyed, claim.token, { status: answer.status, headers: answer.headers, body: JSON.stringify(answer.keptBody ?? answer.body) });
			} else {
				await releaseKey(keyed, claim.token);
			}
		} catch (err) {
			// The change is made: its answer goes out. The claim lapses after CLAIM_MS, and a retry
			// then runs again (and meets the change, e.g. already_enrolled). Logged with the request.
			answer = { ...answer, failure: answer.failure ?? err };
		}
		send(res, answer);
	};
}
