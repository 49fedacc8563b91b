import type { Request } from 'express';

import { endpointInput } from '../../webhooks/endpoint-input';
import { refusedList, refusedText, type RefusedForm } from '../session';
import { listField, textField } from '../viewer';

/** The endpoint form (add and edit), as shown. */
export interface EndpointForm {
	url?: string;
	events?: string[];
	description?: string;
	error?: string;
}

/** What a form field of the endpoint form (add or edit) broke, in the person's terms. */
const FIELD_ERRORS: Record<string, string> = {
	url: 'Enter the URL the LMS should post events to (http:// or https://, at most 2,048 characters, no control characters).',
	events: 'Choose at least one event type, or "Every event type".',
	description: 'The description must be at most 500 characters of plain text.',
};

/** The endpoint form as submitted, and what the API's own rule (webhooks/endpoint-input.ts) says of it, in the person's terms. */
export function submittedEndpoint(req: Request): { form: Required<Omit<EndpointForm, 'error'>>; error?: string } {
	const form = { url: textField(req, 'url').trim(), events: listField(req, 'events'), description: textField(req, 'description').trim() };
	const { error } = endpointInput.validate(form, { abortEarly: true });
	if (!error) return { form };
	const name = String(error.details[0]?.path[0] ?? 'url');
	return { form, error: FIELD_ERRORS[name] ?? error.message };
}

/** A refused endpoint form, as the page shows it again after the redirect. */
export function submittedAgain(back: RefusedForm): EndpointForm {
	return { url: refusedText(back, 'url'), events: refusedList(back, 'events'), description: refusedText(back, 'description'), error: back.error };
}
