import type { Plan } from './model';

/**
 * The one place for the Enterprise rule: only an Enterprise organization may use the REST API,
 * and so only it may be given API keys. The API's 403 plan_required, the key rules and the
 * settings pages all ask this; keys of an organization that leaves Enterprise stop working on
 * the next request and work again if it returns.
 */
export function hasApiAccess(plan: Plan): boolean {
	return plan === 'enterprise';
}
