import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { getRecord, outcomeOf, type LmsItemOutcome } from '../shared/execute';
import {
	asNodeError,
	httpFailureOf,
	idempotencyKeyFor,
	lmsAnswerError,
	lmsApiRequest,
	lmsProblemOf,
} from '../shared/transport';

/**
 * Create's enrollment and its "If Already Enrolled" option, shared by both versions of the node
 * (they differ only in how the student and the course are picked).
 */
export function ifAlreadyEnrolledProperty(description: string): INodeProperties {
	return {
		displayName: 'If Already Enrolled',
		name: 'ifAlreadyEnrolled',
		type: 'options',
		default: 'fail',
		description,
		options: [
			{
				name: 'Fail',
				value: 'fail',
				description: 'Stop with an error that names the existing enrollment',
			},
			{
				name: 'Return Existing Enrollment',
				value: 'returnExisting',
				description:
					'Output the enrollment the student already has, so running the workflow twice for the same person is safe',
			},
		],
	};
}

/**
 * On 409 already_enrolled, the existing enrollment when If Already Enrolled says so; otherwise
 * the error as it is.
 */
async function existingOr(this: IExecuteFunctions, error: unknown, itemIndex: number): Promise<IDataObject> {
	const ifAlreadyEnrolled = this.getNodeParameter('ifAlreadyEnrolled', itemIndex, 'fail') as string;
	const problem = lmsProblemOf(error);
	const existingId = problem?.code === 'already_enrolled' ? problem.enrollment_id : undefined;
	if (ifAlreadyEnrolled !== 'returnExisting' || !existingId) {
		throw asNodeError(this.getNode(), error, itemIndex);
	}
	// The 409 names the enrollment but does not carry it; read it so the output has the
	// same shape as a fresh one.
	return await getRecord.call(this, '/enrollments', existingId, itemIndex);
}

/** POST /enrollments; on 409 already_enrolled, the existing enrollment when the option says so. */
export async function enroll(
	this: IExecuteFunctions,
	studentId: string,
	courseId: string,
	itemIndex: number,
	more: IDataObject = {},
): Promise<IDataObject> {
	try {
		return await lmsApiRequest.call(this, {
			method: 'POST',
			endpoint: '/enrollments',
			body: { student_id: studentId, course_id: courseId, ...more },
			itemIndex,
		});
	} catch (error) {
		return await existingOr.call(this, error, itemIndex);
	}
}

/** The student and course an input item names, as each version of the node reads them. */
export type EnrollmentPair = (this: IExecuteFunctions, itemIndex: number) => Promise<[studentId: string, courseId: string]>;

/** The other fields an input item gives the new enrollment (version 2.1's Due Date), as the API names them. */
export type EnrollmentFields = (this: IExecuteFunctions, itemIndex: number) => IDataObject;

/** Node runs whose LMS has no batch endpoint (an older server): they go on one item per request. */
const withoutBatches = new WeakSet<object>();

/** 404/405 for the batch path: the LMS predates batches (SPEC §18). */
function isMissingBatchEndpoint(error: unknown): boolean {
	const status = error instanceof NodeApiError ? Number(error.httpCode) : httpFailureOf(error).status;
	return status === 404 || status === 405;
}

interface BatchAnswer {
	data: Array<{ index: number; status: number; body: unknown }>;
}

function isBatchAnswer(body: IDataObject, count: number): boolean {
	const data = (body as unknown as BatchAnswer).data;
	return Array.isArray(data) && data.length === count && data.every((entry, i) => entry?.index === i && typeof entry.status === 'number');
}

/**
 * Create for many input items: the enrollments they name go to the LMS as one batch request
 * (POST /enrollments/batch, up to 100), each answered as its own POST would be, so the output is
 * what one request per item gives (records, the If Already Enrolled choice, errors with the
 * same messages) at a hundredth of the requests against the LMS's per-IP limit. One item to send
 * goes as a plain POST; an LMS without batches gets one POST per item.
 */
export async function enrollMany(
	this: IExecuteFunctions,
	itemIndexes: number[],
	pairOf: EnrollmentPair,
	fieldsOf: EnrollmentFields = () => ({}),
): Promise<LmsItemOutcome[]> {
	const outcomes: LmsItemOutcome[] = [];
	const toSend: Array<{ at: number; itemIndex: number; body: IDataObject }> = [];
	for (const [at, itemIndex] of itemIndexes.entries()) {
		try {
			const [studentId, courseId] = await pairOf.call(this, itemIndex);
			toSend.push({ at, itemIndex, body: { student_id: studentId, course_id: courseId, ...fieldsOf.call(this, itemIndex) } });
		} catch (error) {
			outcomes[at] = { error };
		}
	}
	const one = async (entry: (typeof toSend)[number]) => {
		outcomes[entry.at] = await outcomeOf.call(
			this,
			async () => {
				const { student_id: studentId, course_id: courseId, ...more } = entry.body;
				return await enroll.call(this, String(studentId), String(courseId), entry.itemIndex, more);
			},
			entry.itemIndex,
		);
	};
	if (toSend.length === 1 || withoutBatches.has(this)) {
		for (const entry of toSend) await one(entry);
		return outcomes;
	}
	if (toSend.length === 0) return outcomes;

	const endpoint = '/enrollments/batch';
	let answer: IDataObject;
	try {
		answer = await lmsApiRequest.call(this, {
			method: 'POST',
			endpoint,
			body: { items: toSend.map((entry) => entry.body) },
			itemIndex: toSend[0].itemIndex,
			// One key for the batch, from the input items it serves: a retry sends the same batch.
			idempotencyKey: idempotencyKeyFor(this, `i${itemIndexes[0]}-${itemIndexes[itemIndexes.length - 1]}`, 'POST', endpoint),
		});
	} catch (error) {
		if (isMissingBatchEndpoint(error)) {
			withoutBatches.add(this);
			for (const entry of toSend) await one(entry);
			return outcomes;
		}
		// Nothing was answered item by item (no key, no network, …): every item has that failure.
		for (const entry of toSend) outcomes[entry.at] = { error };
		return outcomes;
	}
	if (!isBatchAnswer(answer, toSend.length)) {
		const error = new NodeOperationError(this.getNode(), 'The answer to an enrollment batch is not from the LMS API: check the Base URL in the credential', {
			itemIndex: toSend[0].itemIndex,
		});
		for (const entry of toSend) outcomes[entry.at] = { error };
		return outcomes;
	}
	for (const [i, { status, body }] of (answer as unknown as BatchAnswer).data.entries()) {
		const entry = toSend[i];
		if (status >= 200 && status < 300) {
			outcomes[entry.at] = { records: body as IDataObject };
			continue;
		}
		const error = await lmsAnswerError.call(this, { status, body }, { method: 'POST', endpoint: '/enrollments', body: entry.body, itemIndex: entry.itemIndex });
		outcomes[entry.at] = await outcomeOf.call(this, async () => await existingOr.call(this, error, entry.itemIndex), entry.itemIndex);
	}
	return outcomes;
}
