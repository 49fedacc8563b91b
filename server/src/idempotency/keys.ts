import { brotliCompressSync, brotliDecompressSync, constants } from 'node:zlib';

import { Op, UniqueConstraintError } from 'sequelize';

import { randomBase62 } from '../common/ids';
import { RuleError } from '../common/rule-error';
import { database } from '../db';
import { writeTransaction } from '../db/write-transaction';
import { IdempotencyKey } from './model';

/**
 * Idempotency keys (SPEC §18, after Stripe's and the IETF draft "The Idempotency-Key HTTP Header
 * Field"). A key is claimed by inserting its row before the request runs: the unique index on
 * (organization, key) lets one claim win on any number of instances, and every other request
 * with that key finds the row and is answered from it (the kept answer, in use, or reused).
 * This module keeps answers as plain data; the web layer decides what an answer is.
 */

/** How long a key and its first answer are kept. */
const KEEP_MS = 24 * 3_600_000;

/**
 * How long a claim holds without an answer. A request that is still running after this is
 * taken to belong to a process that died (a graceful stop lets requests finish), and the key
 * may be claimed again. Far above any write's time: a batch of 100 takes about a second.
 */
const CLAIM_MS = 60_000;

/** What a request is, for telling a retry from another request under the same key. */
export interface KeyedRequest {
	organizationId: string;
	key: string;
	method: string;
	path: string;
	/** SHA-256 (hex) of the method, path and body. */
	fingerprint: string;
}

/** An answer as it is kept: status, the headers that belong to it, and the body's text. */
export interface KeptAnswer {
	status: number;
	headers: Record<string, string>;
	body: string;
}

/** The request may run: it holds the claim (`token`) until its answer is kept or released. */
export type Claim = { token: string; replay?: undefined } | { replay: KeptAnswer; token?: undefined };

const later = (now: Date, ms: number) => new Date(now.getTime() + ms);

/**
 * Answers longer than this are kept compressed (issue 39 L3): a batch's answer of 100 records is
 * about 40 KB of JSON whose field names and ids repeat, and shrinks to a fifth or less; short
 * answers (a record, a problem) are not worth it.
 */
const COMPRESS_ABOVE = 1_024;
/** Marks a kept body as Brotli, Base64: JSON text never starts with it. */
const COMPRESSED = 'br64:';

/** The body as it is stored: as is, or compressed when long. */
function storedBody(body: string): string {
	if (body.length <= COMPRESS_ABOVE) return body;
	const packed = brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT } });
	return `${COMPRESSED}${packed.toString('base64')}`;
}

/** The body as it was answered, from what is stored (rows kept before compression included). */
function answeredBody(stored: string): string {
	return stored.startsWith(COMPRESSED) ? brotliDecompressSync(Buffer.from(stored.slice(COMPRESSED.length), 'base64')).toString('utf8') : stored;
}

/**
 * Claims the key for this request, or answers from what the key already holds: the kept answer
 * of the same request (a replay), RuleError `idempotency_key_reused` for another request, or
 * `idempotency_key_in_use` while the first one runs. A row past its 24 hours counts as absent.
 */
export async function claimKey(request: KeyedRequest, now = new Date()): Promise<Claim> {
	const { organizationId, key } = request;
	// Each turn either claims, answers, or finds that the row just changed (released, expired,
	// taken over) and looks again; three turns are plenty for that to settle.
	for (let turn = 0; turn < 3; turn++) {
		const token = randomBase62(20);
		try {
			await writeTransaction(database(), (transaction) =>
				IdempotencyKey.create(
					{ ...request, claimToken: token, claimedUntil: later(now, CLAIM_MS), expiresAt: later(now, KEEP_MS) },
					{ transaction },
				),
			);
			return { token };
		} catch (err) {
			if (!(err instanceof UniqueConstraintError)) throw err;
		}
		const held = await IdempotencyKey.findOne({ where: { organizationId, key } });
		if (!held) continue;
		if (held.expiresAt <= now) {
			await writeTransaction(database(), (transaction) =>
				IdempotencyKey.destroy({ where: { id: held.id, expiresAt: { [Op.lte]: now } }, transaction }),
			);
			continue;
		}
		if (held.fingerprint !== request.fingerprint) throw keyReused(held);
		if (held.responseStatus !== null) {
			return {
				replay: {
					status: held.responseStatus,
					headers: JSON.parse(held.responseHeaders ?? '{}') as Record<string, string>,
					body: answeredBody(held.responseBody ?? ''),
				},
			};
		}
		if (held.claimedUntil !== null && held.claimedUntil > now) throw keyInUse();
		// A claim left by a process that died: take it over, unless another request just did.
		const [taken] = await writeTransaction(database(), (transaction) =>
			IdempotencyKey.update(
				{ claimToken: token, claimedUntil: later(now, CLAIM_MS) },
				{ where: { id: held.id, claimToken: held.claimToken, responseStatus: null }, transaction },
			),
		);
		if (taken === 1) return { token };
	}
	throw keyInUse();
}

/** Keeps the claimed request's answer for replays (only the claim's holder can). */
export async function keepAnswer(request: Pick<KeyedRequest, 'organizationId' | 'key'>, token: string, answer: KeptAnswer): Promise<void> {
	await writeTransaction(database(), (transaction) =>
		IdempotencyKey.update(
			{
				responseStatus: answer.status,
				responseHeaders: JSON.stringify(answer.headers),
				responseBody: storedBody(answer.body),
				claimToken: null,
				claimedUntil: null,
			},
			{ where: { organizationId: request.organizationId, key: request.key, claimToken: token }, transaction },
		),
	);
}

/** Gives the key up without an answer: the next request with it runs as if it were the first. */
export async function releaseKey(request: Pick<KeyedRequest, 'organizationId' | 'key'>, token: string): Promise<void> {
	await writeTransaction(database(), (transaction) =>
		IdempotencyKey.destroy({
			where: { organizationId: request.organizationId, key: request.key, claimToken: token, responseStatus: null },
			transaction,
		}),
	);
}

function keyReused(held: IdempotencyKey): RuleError {
	return new RuleError(
		'idempotency_key_reused',
		`This Idempotency-Key was already used in the last 24 hours for another request (${held.method} ${held.path} with another body). Send a new key for a new request.`,
		{ method: held.method, path: held.path },
	);
}

function keyInUse(): RuleError {
	return new RuleError(
		'idempotency_key_in_use',
		'A request with this Idempotency-Key is still running. Retry in a moment to get the first request\'s answer.',
	);
}
