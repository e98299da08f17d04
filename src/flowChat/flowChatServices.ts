// What Chat with Flow is handed: the services every feature has, which crews chat and their recent sessions.
import type { Services } from '../services';
import type { ChatSessionStore } from './core/chatSessions';
import type { ChatSupport } from './core/chatSupport';

export interface FlowChatServices extends Services {
  /** Which crews chat (GET /inspect), asked when the tree first draws them. */
  readonly chats: ChatSupport;
  /** Each crew's recent chat sessions, shared by every window (files in global storage). */
  readonly chatSessions: ChatSessionStore;
}
