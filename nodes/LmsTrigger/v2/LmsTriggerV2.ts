import type {
	IDataObject,
	INodeExecutionData,
	INodeType,
	INodeTypeBaseDescription,
	INodeTypeDescription,
	IPollFunctions,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { searchCourses } from '../../shared/list-search';
import { locatorId } from '../../shared/locators';
import { cursorScope, pollingTriggerDescription } from '../../shared/polling';
import { asNodeError, lmsProblemOf } from '../../shared/transport';
import {
	CERTIFICATE_EXPIRING,
	DEFAULT_DAYS_BEFORE,
	DEFAULT_DUE_DAYS_BEFORE,
	ENROLLMENT_DUE_SOON,
	eventProperties,
	isFeedEvent,
	type FeedEventType,
} from './events';
import { pollEvents, sampleEvent, type TriggerSettings } from './poll';
import { clearState, copyState, readState, writeState, type TriggerState } from './state';

async function settingsOf(context: IPollFunctions): Promise<TriggerSettings> {
	const chosen = context.getNodeParameter('events', []) as string[];
	const unknown = chosen.filter((type) => type !== CERTIFICATE_EXPIRING && type !== ENROLLMENT_DUE_SOON && !isFeedEvent(type));
	if (chosen.length === 0 || unknown.length > 0) {
		throw new NodeOperationError(
			context.getNode(),
			chosen.length === 0 ? 'Choose at least one event in Events' : `The event "${unknown[0]}" is not supported`,
		);
	}
	const filters = context.getNodeParameter('filters', {}) as IDataObject;
	// The Course picker (From List / By ID), checked against the ID shape before any request.
	const courseId = await locatorId.call(context, 'course', filters.course, 'The Course filter');
	const role = typeof filters.role === 'string' && filters.role ? filters.role : undefined;
	const settings: TriggerSettings = { events: chosen.filter(isFeedEvent) as FeedEventType[], courseId, role };
	if (chosen.includes(CERTIFICATE_EXPIRING)) {
		const days = Number(context.getNodeParameter('daysBefore', DEFAULT_DAYS_BEFORE));
		if (!Number.isInteger(days) || days < 0) {
			throw new NodeOperationError(context.getNode(), 'Days Before Expiry must be a whole number of days, 0 or more');
		}
		settings.expiring = { days, courseId };
	}
	if (chosen.includes(ENROLLMENT_DUE_SOON)) {
		const days = Number(context.getNodeParameter('dueDaysBefore', DEFAULT_DUE_DAYS_BEFORE));
		if (!Number.isInteger(days) || days < 1) {
			throw new NodeOperationError(context.getNode(), 'Days Before Due Date must be a whole number of days, 1 or more');
		}
		settings.dueSoon = { days, courseId };
	}
	return settings;
}

/** Events, filters and days as the scope's query: a change of any starts a new baseline. */
function scopeQuery(settings: TriggerSettings): Record<string, string> {
	const made = [...(settings.expiring ? [CERTIFICATE_EXPIRING] : []), ...(settings.dueSoon ? [ENROLLMENT_DUE_SOON] : [])];
	const query: Record<string, string> = { events: [...settings.events, ...made].sort().join(',') };
	if (settings.courseId) query.course_id = settings.courseId;
	if (settings.role) query.role = settings.role;
	if (settings.expiring) query.days = String(settings.expiring.days);
	if (settings.dueSoon) query.due_days = String(settings.dueSoon.days);
	return query;
}

/** What the node does, as the node panel and the versioned node's base description say it. */
export const LMS_TRIGGER_DESCRIPTION =
	'Starts the workflow when something happens in your LMS: a new user or enrollment, a completion, a withdrawal, a deadline soon or missed, a certificate issued or about to expire (polling)';

/**
 * Version 2 reads the LMS's event feed (GET /api/v1/events, SPEC §11) from the last event it
 * received, and makes Certificate Expiring from the certificates' expiry dates (expiring.ts) and
 * Enrollment Due Soon from the enrollments' due dates (due-soon.ts).
 * See docs/trigger.md for how each promise is kept.
 */
export class LmsTriggerV2 implements INodeType {
	description: INodeTypeDescription;

	constructor(baseDescription: INodeTypeBaseDescription) {
		this.description = pollingTriggerDescription(baseDescription, {
			version: 2,
			description: LMS_TRIGGER_DESCRIPTION,
			subtitle: '={{ $parameter["events"].join(", ") }}',
			properties: eventProperties,
		});
	}

	/** The Course filter's From List: courses searched by title (SPEC §13). */
	methods = { listSearch: { searchCourses } };

	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		const settings = await settingsOf(this);
		const staticData = this.getWorkflowStaticData('node') as IDataObject;
		const scope = await cursorScope(this, 'v2', scopeQuery(settings));
		const stored = readState(staticData, scope);
		const now = Date.now();

		if (this.getMode() === 'manual') {
			const sample = await sampleEvent(this, settings, stored, now);
			return sample.length > 0 ? [this.helpers.returnJsonArray(sample)] : null;
		}

		// No state for these settings: this poll is the activation (the feed's head is the baseline).
		const working: TriggerState = stored ? copyState(stored) : { version: 2, scope, since: now };
		let result;
		try {
			result = await pollEvents(this, settings, working, now, !stored);
		} catch (error) {
			// Any error leaves the stored state as it was: the next poll reads the same again. Only a
			// cursor the LMS no longer keeps (410) is dropped, or every poll would fail the same way.
			if (lmsProblemOf(error)?.code === 'cursor_expired') clearState(staticData);
			throw asNodeError(this.getNode(), error, 0);
		}
		writeState(staticData, result.state);
		return result.items.length > 0 ? [this.helpers.returnJsonArray(result.items)] : null;
	}
}
