import type { Request, RequestHandler, Response } from 'express';
import pino, { type DestinationStream, type Logger } from 'pino';

import type { Caller } from '../api-keys/authenticate';
import type { Config } from '../config';
import { redactKeys } from '../common/redact';
import { requestIdOf } from './request-id';

/**
 * Logs are JSON, carry the request id, and never hold a key secret, a session cookie or SQL.
 * Request headers are logged from an allow-list rather than a deny-list, so a header added
 * tomorrow cannot leak by default.
 */

const LOGGED_REQUEST_HEADERS = ['host', 'user-agent', 'content-type', 'content-length', 'x-forwarded-for'];

/** Replaces anything that spells an API key, in any encoding (even a truncated one), with a fixed marker. */
export function scrubSecrets(text: string): string {
	return redactKeys(text);
}

/** An error as it may be logged: kind, message and stack, without Sequelize's `sql`/`parameters`. */
export function describeError(err: unknown): Record<string, unknown> {
	if (!(err instanceof Error)) return { type: typeof err, message: scrubSecrets(String(err)) };
	const code = (err as { code?: unknown }).code;
	return {
		type: err.name,
		message: scrubSecrets(err.message),
		...(typeof code === 'string' ? { code } : {}),
		stack: err.stack ? scrubSecrets(err.stack) : undefined,
	};
}

/** The server's logger. Tests pass a destination to capture lines. */
export function createLogger(config: Pick<Config, 'logLevel'>, destination?: DestinationStream): Logger {
	return pino(
		{
			level: config.logLevel,
			base: { service: 'lms-server' },
			timestamp: pino.stdTimeFunctions.isoTime,
			// Belt and braces: fields that must never be written, whoever logs them.
			redact: {
				paths: ['req.headers.authorization', 'req.headers.cookie', 'res.headers["set-cookie"]', 'authorization', 'key', 'secret'],
				censor: '[redacted]',
			},
			serializers: { err: describeError },
			hooks: {
				// Every serialized line passes through here before it is written, so a key cannot
				// reach the log whichever field, header or encoding carries it: the check is on the
				// text that is written, not on the fields we thought of.
				streamWrite: redactKeys,
				logMethod(args, method) {
					method.apply(
						this,
						args.map((a) => (typeof a === 'string' ? scrubSecrets(a) : a)) as Parameters<typeof method>,
					);
				},
			},
		},
		destination ?? standardOutput(),
	);
}

/**
 * Standard output written asynchronously by pino's own destination (sonic-boom), which holds
 * lines until 4 KiB are pending or 5 ms have passed since the first of them: a write per line,
 * even an asynchronous one, was a thread-pool round trip per request (API overhead at one
 * connection 0.61 of the baseline against 0.71 so, docs/benchmarks.md). The 5 ms timer runs only
 * while a line waits: sonic-boom's own periodicFlush wrote (an empty string) to standard output
 * every 5 ms even with nothing logged, 4 % of a busy server's CPU (issue 40's profile). pino
 * flushes it synchronously on exit and after a fatal line, so nothing logged before the end is lost.
 */
function standardOutput(): DestinationStream {
	const stream = pino.destination({ dest: 1, sync: false, minLength: 4096 });
	const write = stream.write.bind(stream);
	let flushing: NodeJS.Timeout | undefined;
	stream.write = (line: string) => {
		const written = write(line);
		flushing ??= setTimeout(() => {
			flushing = undefined;
			stream.flush();
		}, 5).unref();
		return written;
	};
	return stream;
}

/** The request as the access log shows it; headers from an allow-list, the address without secrets. */
function describeRequest(req: Request) {
	const headers: Record<string, unknown> = {};
	for (const name of LOGGED_REQUEST_HEADERS) if (req.headers[name] !== undefined) headers[name] = req.headers[name];
	return { method: req.method, url: scrubSecrets(req.originalUrl), headers, remote_address: req.socket.remoteAddress };
}

function oldKeyCalled(res: Response): boolean {
	return (res.locals.caller as Caller | undefined)?.apiKey.oldKey === true;
}

/**
 * One access-log line per request, bound to the request id that every response carries, written
 * when the connection is done with the response: "request completed", or "request aborted" when
 * the client left first. A 5xx, or an error the error handler left on `res.err`, is logged at
 * level error with the error. (Written here rather than with pino-http, which made a child
 * logger per request: a tenth of a list request's CPU.)
 */
export function httpLogger(logger: Logger): RequestHandler {
	// Every field of this line is chosen here (headers from the allow-list, the URL scrubbed), so
	// the logger's redact paths cannot match in it and are left out: checking them was a fifth of
	// the line's cost. Keys are still scrubbed from the written text, as on every line.
	const access = logger.child({}, { redact: { paths: [] } });
	return (req, res, next) => {
		const started = Date.now();
		res.once('close', () => {
			const err = (res as Response & { err?: unknown }).err;
			const level = err !== undefined || res.statusCode >= 500 ? 'error' : 'info';
			access[level](
				{
					request_id: requestIdOf(req),
					req: describeRequest(req),
					res: { status: res.statusCode },
					// A rotated key in its grace time (SPEC §22): who still has to switch.
					...(oldKeyCalled(res) ? { api_key_id: (res.locals.caller as Caller).apiKey.id, old_key: true } : {}),
					...(err !== undefined ? { err } : {}),
					responseTime: Date.now() - started,
				},
				res.writableFinished ? 'request completed' : 'request aborted',
			);
		});
		next();
	};
}
