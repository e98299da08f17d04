// What the chat bundle (dist/chat.js, loaded on first use) takes from the main bundle instead of its
// own copies: the error class the client throws (instanceof must see that very class) and the one
// wording of errors. Passed in by registerChat.ts; chat modules import only its type.
import { CrewApiError } from '../api/errors';
import { describeError } from '../views/errorMessages';

export const chatKit = { CrewApiError, describeError };

export type ChatKit = typeof chatKit;
