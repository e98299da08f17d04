// What the chat bundle (dist/chat.js, loaded on first use) takes from the main bundle instead of its
// own copies: the error class the client throws (instanceof must see that very class), the one rule for
// "the crew may have acted on what was sent" and the one wording of errors. Passed in by registerChat.ts;
// chat modules import only its type.
import { CrewApiError, mayHaveActed } from '../api/errors';
import { describeError } from '../views/errorMessages';

export const chatKit = { CrewApiError, mayHaveActed, describeError };

export type ChatKit = typeof chatKit;
