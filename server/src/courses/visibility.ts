/** The API shows published courses only: drafts are invisible (404), not forbidden. */
export const PUBLISHED = { status: 'published' } as const;
