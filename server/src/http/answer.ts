import type { Response } from 'express';

import type { Caller } from '../api-keys/authenticate';
import type { Problem } from '../common/problem';
import { problemBody, knownProblem } from './errors';

/**
 * A write operation (every POST and PATCH of /api/v1) answers with data rather than writing to
 * the response, so that the web layer can send the answer, keep it for a retry with the same
 * Idempotency-Key (http/idempotency.ts), or put it in a batch's `data` (http/batch.ts): one
 * code path for an operation, whichever way it is called.
 */
export interface Answer {
	status: number;
	/** Headers that are part of the answer and are replayed with it (Content-Type, Location). */
	headers: Record<string, string>;
	body: unknown;
	/** What a replay shows instead of `body`, when the first answer holds a secret shown once. */
	keptBody?: unknown;
	/** An unexpected error behind part of the answer (a batch item): logged, and the answer not kept. */
	failure?: unknown;
	/**
	 * The request changed nothing (a batch whose every item was refused or found its record as it
	 * was): its answer is not kept for an Idempotency-Key, since running it again is as safe as
	 * replaying it (http/idempotency.ts).
	 */
	unchanged?: true;
}

/** What a write operation gets: the parsed JSON body (one item of a batch), the path's parameters, the caller. */
export interface WriteRequest {
	body: unknown;
	params: Record<string, string>;
	caller: Caller;
	/** For problem bodies (`request_id`). */
	requestId: string;
	/** Where the request came from, for writes that are audited (webhook endpoints). */
	origin?: { ip: string | null; userAgent: string | null };
}

export type WriteHandler = (request: WriteRequest) => Promise<Answer>;

const JSON_TYPE = 'application/json; charset=utf-8';

/** 200 with the record (or whatever body). */
export function ok(body: unknown): Answer {
	return { status: 200, headers: { 'Content-Type': JSON_TYPE }, body };
}

/** 201 with the new record and where it lives. */
export function created(location: string, body: unknown, keptBody?: unknown): Answer {
	return { status: 201, headers: { 'Content-Type': JSON_TYPE, Location: location }, body, keptBody };
}

/** A problem as an answer: exactly the response the error handler would send for it. */
export function problemAnswer(problem: Problem, requestId: string): Answer {
	return { status: problem.status, headers: { ...problem.headers, 'Content-Type': 'application/problem+json' }, body: problemBody(problem, requestId) };
}

/**
 * Runs a write operation and returns its answer, a refusal (Problem, RuleError) included. Any
 * other error is a bug and is thrown on, to be answered 500 and logged by the error handler.
 */
export async function answerOf(handler: WriteHandler, request: WriteRequest): Promise<Answer> {
	try {
		return await handler(request);
	} catch (err) {
		const problem = knownProblem(err);
		if (!problem || problem.status >= 500) throw err;
		return problemAnswer(problem, request.requestId);
	}
}

/** Sends an answer whose body is already JSON text (a first answer, or a kept one replayed). */
export function sendAnswerText(res: Response, status: number, headers: Record<string, string>, text: string): void {
	const body = Buffer.from(text);
	res.status(status);
	for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
	res.setHeader('Content-Length', body.length);
	res.end(body);
}
