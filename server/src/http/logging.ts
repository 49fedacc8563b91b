import type { IncomingMessage, ServerResponse } from 'node:http';

import pino, { type DestinationStream, type Logger } from 'pino';
import { pinoHttp, type HttpLogger } from 'pino-http';

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

/**
 * Every serialized line passes through here before it is written, so a key cannot reach the
 * log whichever field, header or encoding carries it: the check is on the text that is written,
 * not on the fields we thought of.
 */
function redactingStream(destination: DestinationStream): DestinationStream {
	return { write: (line: string) => destination.write(redactKeys(line)) };
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
			// Belt and braces for loggers used outside pino-http (CLI, start-up).
			redact: {
				paths: ['req.headers.authorization', 'req.headers.cookie', 'res.headers["set-cookie"]', 'authorization', 'key', 'secret'],
				censor: '[redacted]',
			},
			serializers: { err: describeError },
			hooks: {
				logMethod(args, method) {
					method.apply(
						this,
						args.map((a) => (typeof a === 'string' ? scrubSecrets(a) : a)) as Parameters<typeof method>,
					);
				},
			},
		},
		redactingStream(destination ?? pino.destination(1)),
	);
}


/** One access-log line per request, bound to the request id that every response carries. */
export function httpLogger(logger: Logger): HttpLogger {
	return pinoHttp({
		logger,
		genReqId: (req) => requestIdOf(req),
		customAttributeKeys: { reqId: 'request_id' },
		// Binds request_id on req.log itself, so every line a handler logs carries it too.
		quietReqLogger: true,
		wrapSerializers: false,
		serializers: {
			req: (req: IncomingMessage & { originalUrl?: string }) => ({
				method: req.method,
				url: scrubSecrets(req.originalUrl ?? req.url ?? ''),
				headers: Object.fromEntries(
					LOGGED_REQUEST_HEADERS.filter((h) => req.headers[h] !== undefined).map((h) => [h, req.headers[h]]),
				),
				remote_address: req.socket?.remoteAddress,
			}),
			res: (res: ServerResponse) => ({ status: res.statusCode }),
			err: describeError,
		},
		customLogLevel: (_req, res, err) => (err || res.statusCode >= 500 ? 'error' : 'info'),
	});
}
