/** The compliance examples (SPEC §17) and their workflow ids in compliance-examples.test.ts; examples.test.ts counts them as cased. */
export const COMPLIANCE_CASES: Record<string, string> = {
	'due-date-reminder.json': 'lmsExampleDue001',
	'overdue-escalation.json': 'lmsExampleOvd001',
	'monthly-completion-report.json': 'lmsExampleRpt001',
};
