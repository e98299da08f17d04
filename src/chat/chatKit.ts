// What the chat modules are handed rather than import: the error class the client throws, the one rule for
// "the crew may have acted on what was sent" and the one wording of errors. Made in the chat bundle itself
// (chatImpl.ts exports it; CrewApiError is recognised across bundle copies by its brand), so the main bundle
// does not carry the error wording; chat modules import only its type.
import { CrewApiError, mayHaveActed } from '../api/errors';
import { describeError } from '../views/errorMessages';

export const chatKit = { CrewApiError, mayHaveActed, describeError };

export type ChatKit = typeof chatKit;
