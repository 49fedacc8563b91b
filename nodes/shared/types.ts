import type { IDataObject } from 'n8n-workflow';

/** The credential's fields as the nodes read them (see credentials/LmsApi.credentials.ts). */
export interface LmsApiCredentials {
	baseUrl: string;
	apiKey: string;
}

interface LmsPagination {
	page: number;
	per_page: number;
	total: number;
}

/** Every list endpoint answers with this envelope. */
export interface LmsList<T = IDataObject> {
	data: T[];
	pagination: LmsPagination;
}

/** RFC 9457 problem details as the LMS sends them, with its stable `code`. */
export interface LmsProblem {
	type?: string;
	title?: string;
	status?: number;
	detail?: string;
	code?: string;
	request_id?: string;
	errors?: Array<{ param?: string; code?: string; message?: string }>;
	/** Sent with 409 `already_enrolled`: the enrollment that already exists. */
	enrollment_id?: string;
	/** Sent with 409 `email_taken` / `external_id_taken`: the user who already has it. */
	user_id?: string;
	/** Sent with 409 `invalid_transition`: the enrollment's status, and the status asked for. */
	from?: string;
	to?: string;
	/** Sent with 409 `group_name_taken` (the group that has the name) and `assignment_exists`. */
	group_id?: string;
	assignment_id?: string;
	/** Sent with 422 `user_not_found`: the ids that are not the organization's users. */
	user_ids?: string[];
	/** Sent with 403 `insufficient_scope`. */
	required_scope?: string;
}
