import type { IDataObject, ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';

import { asNodeError, lmsApiPage, lmsProblemOf } from './transport';

/**
 * The From List modes of locators.ts. n8n calls a listSearch method with the text typed in the
 * picker (`filter`) and, when the person scrolls past the end, the `paginationToken` the previous
 * call returned. Users and courses search through the API's `search` (SPEC §13: a word of the
 * name or title, or the email, starting with the text). Enrollments and certificates search the
 * same way by their student and course, newest first, and show as "student — course (status)"
 * from the names the API embeds (`expand=student,course`: no request per row). Register all of
 * them on a node with `methods: { listSearch: lmsListSearch }`.
 */

/** Per picker page: enough to fill the dropdown, one request per scroll. */
export const LIST_SEARCH_PAGE_SIZE = 50;
/** The API's limit on `search` (1–100 characters). */
const SEARCH_MAX_LENGTH = 100;

function pageOf(paginationToken?: string): number {
	const page = Number(paginationToken);
	return Number.isInteger(page) && page >= 1 ? page : 1;
}

async function listPage(
	this: ILoadOptionsFunctions,
	endpoint: string,
	qs: IDataObject,
	paginationToken: string | undefined,
	toResult: (record: IDataObject) => { name: string; value: string },
): Promise<INodeListSearchResult> {
	const page = pageOf(paginationToken);
	const list = await lmsApiPage.call(this, endpoint, { page, perPage: LIST_SEARCH_PAGE_SIZE, qs });
	const { total } = list.pagination;
	return {
		results: list.data.map(toResult),
		// The next page while this one did not reach the total; n8n stops asking without a token.
		paginationToken: list.data.length > 0 && page * LIST_SEARCH_PAGE_SIZE < total ? String(page + 1) : undefined,
	};
}

function searchQuery(filter?: string): IDataObject {
	const text = (filter ?? '').trim().slice(0, SEARCH_MAX_LENGTH);
	return text ? { search: text } : {};
}

const userResult = (user: IDataObject) => ({
	name: `${String(user.name ?? '')} (${String(user.email ?? '')})`,
	value: String(user.id),
});

async function searchUsers(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	return await listPage.call(this, '/users', searchQuery(filter), paginationToken, userResult);
}

/** Users with the student role only: the ones that can be enrolled. */
async function searchStudents(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	return await listPage.call(this, '/users', { ...searchQuery(filter), role: 'student' }, paginationToken, userResult);
}

export async function searchCourses(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	return await listPage.call(this, '/courses', searchQuery(filter), paginationToken, (course) => ({
		name: String(course.title ?? course.id),
		value: String(course.id),
	}));
}

/** What a picker needs of enrollments and certificates: the newest first, with both names. */
const NAMED_NEWEST_FIRST: IDataObject = { sort: '-created_at', expand: 'student,course' };

/**
 * A page of enrollments or certificates named by student and course. Students' names and e-mails
 * need read:users besides (the API answers 403 to `expand=student` without it): for a key that
 * lacks it the picker still lists them, the student shown by id, rather than failing.
 */
async function namedPage(
	this: ILoadOptionsFunctions,
	endpoint: string,
	filter: string | undefined,
	paginationToken: string | undefined,
	toResult: (record: IDataObject) => { name: string; value: string },
): Promise<INodeListSearchResult> {
	try {
		return await listPage.call(this, endpoint, { ...searchQuery(filter), ...NAMED_NEWEST_FIRST }, paginationToken, toResult);
	} catch (error) {
		const problem = lmsProblemOf(error);
		// Anything else is the LMS's NodeApiError already (a picker has one item: index 0).
		if (problem?.code !== 'insufficient_scope' || problem.required_scope !== 'read:users') throw asNodeError(this.getNode(), error, 0);
		return await listPage.call(this, endpoint, { ...searchQuery(filter), sort: '-created_at', expand: 'course' }, paginationToken, toResult);
	}
}

/** "Ada Lovelace — Security Awareness", falling back to the ids for a record the API no longer names. */
function studentAndCourse(record: IDataObject): string {
	const student = record.student as IDataObject | null | undefined;
	const course = record.course as IDataObject | null | undefined;
	return `${String(student?.name ?? record.student_id)} — ${String(course?.title ?? record.course_id)}`;
}

const ENROLLMENT_STATUS_WORDS: Record<string, string> = {
	active: 'in progress',
	completed: 'completed',
	withdrawn: 'withdrawn',
	expired: 'expired',
};

async function searchEnrollments(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	return await namedPage.call(this, '/enrollments', filter, paginationToken, (enrollment) => ({
		name: `${studentAndCourse(enrollment)} (${ENROLLMENT_STATUS_WORDS[String(enrollment.status)] ?? String(enrollment.status)})`,
		value: String(enrollment.id),
	}));
}

/** valid (no expiry), valid until a day, or expired on a day: what someone picking a certificate checks. */
function certificateStatus(certificate: IDataObject): string {
	if (!certificate.expires_at) return 'valid, no expiry';
	const expiresAt = String(certificate.expires_at);
	return Date.parse(expiresAt) > Date.now() ? `valid until ${expiresAt.slice(0, 10)}` : `expired ${expiresAt.slice(0, 10)}`;
}

async function searchCertificates(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	return await namedPage.call(this, '/certificates', filter, paginationToken, (certificate) => ({
		name: `${studentAndCourse(certificate)} (${certificateStatus(certificate)})`,
		value: String(certificate.id),
	}));
}

/** Groups by a part of the name, shown with their member count. */
async function searchGroups(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	return await listPage.call(this, '/groups', searchQuery(filter), paginationToken, (group) => ({
		name: `${String(group.name ?? group.id)} (${Number(group.member_count ?? 0)} member${Number(group.member_count) === 1 ? '' : 's'})`,
		value: String(group.id),
	}));
}

/** Every From List method, for a node's `methods.listSearch`. */
export const lmsListSearch = {
	searchUsers,
	searchStudents,
	searchCourses,
	searchEnrollments,
	searchCertificates,
	searchGroups,
};
