/** The group examples (SPEC §20) and their workflow ids in groups.test.ts; examples.test.ts counts them as cased. */
export const GROUP_CASES: Record<string, string> = {
	'group-course-assignment.json': 'lmsExampleGrp001',
	'new-hire-department.json': 'lmsExampleDpt001',
};
