/**
 * The bulk-enrollment workflow of the cut-answer test and the n8n-bulk benchmark: a list of new
 * hires (one Set node, as an HR system's export would arrive) split into one item each, then LMS
 * Enrollments → Create into one course with Retry On Fail, so a lost answer fails the node and
 * n8n runs it again within the same execution (same execution id, same Idempotency-Keys).
 */
export const ENROLL_NODE = 'Enroll';

export function bulkEnrollWorkflow({
	id,
	credentialId,
	course,
	students,
	maxTries,
	ifAlreadyEnrolled = 'fail',
}: {
	id: string;
	credentialId: string;
	course: string;
	students: string[];
	/** n8n's Retry On Fail tries, 2 to 5 (n8n caps it at 5; each lost answer costs one). */
	maxTries: number;
	/** The node's If Already Enrolled: `returnExisting` for a re-run (the n8n-rerun benchmark). */
	ifAlreadyEnrolled?: 'fail' | 'returnExisting';
}): Record<string, unknown> {
	const node = (name: string, type: string, typeVersion: number, x: number, parameters: Record<string, unknown>) => ({
		id: `${id}-${name.toLowerCase().replace(/\W+/g, '-')}`,
		name,
		type,
		typeVersion,
		position: [x, 0],
		parameters,
	});
	const next = (from: string, to: string) => ({ [from]: { main: [[{ node: to, type: 'main', index: 0 }]] } });
	return {
		id,
		name: `LMS bulk enrollment ${id}`,
		active: false,
		settings: { executionOrder: 'v1' },
		nodes: [
			node('Start', 'n8n-nodes-base.manualTrigger', 1, 0, {}),
			node('New hires', 'n8n-nodes-base.set', 3.4, 220, { mode: 'raw', jsonOutput: JSON.stringify({ hires: students.map((student) => ({ student })) }), options: {} }),
			node('One item each', 'n8n-nodes-base.splitOut', 1, 440, { fieldToSplitOut: 'hires', include: 'noOtherFields', options: {} }),
			{
				...node(ENROLL_NODE, 'n8n-nodes-lms.lmsEnrollments', 2, 660, {
					operation: 'create',
					student: { __rl: true, mode: 'id', value: '={{ $json.student }}' },
					course: { __rl: true, mode: 'id', value: course },
					ifAlreadyEnrolled,
				}),
				retryOnFail: true,
				maxTries,
				// n8n's smallest wait (0 means its default of 1 s).
				waitBetweenTries: 100,
				credentials: { lmsApi: { id: credentialId, name: 'LMS' } },
			},
		],
		connections: { ...next('Start', 'New hires'), ...next('New hires', 'One item each'), ...next('One item each', ENROLL_NODE) },
	};
}
