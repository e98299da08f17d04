// What the crew tools and @crews do: a bundle of its own (dist/chat.js, esbuild.js), required with the first tool
// call or chat request. Activation only registers them (registerChat.ts) and pays for none of this.
export { createParticipantHandler } from './participantHost';
export { createTools } from './tools';
