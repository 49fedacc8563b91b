import type { IDataObject } from 'n8n-workflow';

/** An event of the LMS feed (SPEC §11), as the feed lists it and as a webhook delivers it. */
export interface LmsEvent {
	id?: string;
	type?: string;
	created_at?: string;
	data?: { object?: IDataObject };
}

/**
 * The item both triggers output for one event: the record as the event carries it, plus the
 * event's id, type and time. One shape for LMS Trigger (polling) and LMS Instant Trigger
 * (webhook), so a workflow can switch between them without remapping fields.
 */
export function eventItem(event: LmsEvent): IDataObject {
	return {
		...(event.data?.object ?? {}),
		event_id: String(event.id ?? ''),
		event_type: event.type,
		event_created_at: event.created_at,
	};
}
