import { membersOperation } from './members';

const operation = membersOperation('add');

export const { description, execute, executeMany } = operation;

/** What a stopped batch's error advises: adding is safe to repeat. */
export const rerunHint = 'To finish, fix that item and run the workflow again: users already in the group are left as they are (unchanged).';
