// Entry of the chat bundle (dist/chat.js): the tools and the participant, loaded on their first use
// so that activation and the main bundle do not pay for them (esbuild.js, lazyModules).
export { createTools } from './tools';
export { createParticipantHandler } from './participantHost';
export { chatKit } from './chatKit';

