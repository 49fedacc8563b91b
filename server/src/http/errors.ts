import type { ErrorRequestHandler, RequestHandler, Response } from 'express';

import { Problem, PROBLEM_TYPE_BASE, problems } from '../common/problem';
import { RuleError } from '../common/rule-error';
import { describeError } from './logging';
import { requestIdOf } from './request-id';
import { ruleProblem } from './rule-problems';

/**
 * The one place where errors become responses. The web layer throws (or passes to next) a
 * Problem, the domain a RuleError (answered as http/rule-problems.ts says); anything else is a
 * bug, answered 500 with nothing from inside.
 */

export function problemBody(problem: Problem, requestId: string): Record<string, unknown> {
	return {
		type: PROBLEM_TYPE_BASE + problem.code,
		title: problem.title,
		status: problem.status,
		detail: problem.detail,
		code: problem.code,
		request_id: requestId,
		...(problem.errors ? { errors: problem.errors } : {}),
		...problem.extra,
	};
}

/** Written by hand so the media type is exactly `application/problem+json` (JSON is UTF-8). */
function sendProblem(res: Response, problem: Problem): void {
	const body = Buffer.from(JSON.stringify(problemBody(problem, requestIdOf(res.req))));
	res.status(problem.status);
	for (const [name, value] of Object.entries(problem.headers)) res.setHeader(name, value);
	res.setHeader('Content-Type', 'application/problem+json');
	res.setHeader('Content-Length', body.length);
	res.setHeader('Cache-Control', 'no-store');
	res.end(res.req.method === 'HEAD' ? undefined : body);
}

/** body-parser's limit (bytes) as the 413 says it: each route has its own (http/json-body.ts). */
function sizeInWords(limit: unknown): string {
	if (typeof limit !== 'number') return 'the limit';
	return limit >= 1024 * 1024 ? `${limit / (1024 * 1024)} MiB` : `${limit / 1024} KiB`;
}

/** body-parser and the router signal client errors with `type`/`status`; give them our codes. */
function clientErrorProblem(err: { type?: unknown; status?: unknown }): Problem | undefined {
	switch (err.type) {
		case 'entity.parse.failed':
			return problems.malformedJson();
		case 'entity.too.large':
			return problems.payloadTooLarge(sizeInWords((err as { limit?: unknown }).limit));
		case 'encoding.unsupported':
		case 'charset.unsupported':
			return problems.unsupportedMediaType();
	}
	if (err instanceof URIError) return problems.notFound();
	// Any other client error from the body reader (e.g. a Content-Length that does not match).
	if (typeof err.status === 'number' && err.status >= 400 && err.status < 500 && (err as { expose?: unknown }).expose) {
		return new Problem({
			status: err.status,
			code: 'invalid_request',
			title: 'Bad request',
			detail: 'The request could not be read. Check the body and its Content-Length and Content-Type headers.',
		});
	}
	return undefined;
}

/** The problem an error stands for (ours, a broken rule, a client error), or undefined for a bug. */
export function knownProblem(err: unknown): Problem | undefined {
	if (err instanceof Problem) return err;
	if (err instanceof RuleError) return ruleProblem(err);
	return clientErrorProblem(err ?? {});
}

/**
 * An error handler that answers in one format (problem+json here, SCIM's error schema under
 * /scim/v2): what `known` does not recognise, or recognises as a 5xx, is a bug, handed to the
 * access log to be written with the request's line (level error, with the request id), and
 * answered `internal()`, with nothing from inside.
 */
export function errorHandlerOf<E extends { status: number }>(known: (err: unknown) => E | undefined, internal: () => E, send: (res: Response, error: E) => void): ErrorRequestHandler {
	return (err, _req, res, next) => {
		if (res.headersSent) {
			next(err);
			return;
		}
		const error = known(err);
		if (!error || error.status >= 500) {
			(res as Response & { err?: unknown }).err = err instanceof Error ? err : new Error(describeError(err).message as string);
		}
		send(res, error ?? internal());
	};
}

export const errorHandler = errorHandlerOf(knownProblem, problems.internal, sendProblem);

/** Unknown path: 404 problem (mounted under /api and as the last handler of the app). */
export const notFoundHandler: RequestHandler = (_req, _res, next) => next(problems.notFound('endpoint'));

/** Mounted with `.all()` after a path's real methods: any other method is a 405 with `Allow`. */
export function methodNotAllowed(allow: string[]): RequestHandler {
	return (_req, _res, next) => next(problems.methodNotAllowed(allow));
}
