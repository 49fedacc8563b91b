import { membersOperation } from './members';

const operation = membersOperation('remove');

export const { description, execute, executeMany } = operation;

/** What a stopped batch's error advises: removing is safe to repeat. */
export const rerunHint = 'To finish, fix that item and run the workflow again: users no longer in the group are left as they are (unchanged).';
