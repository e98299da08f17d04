// What the editor's AI is handed: the services every feature has, the platform (deployment tools) and the flow chat's.
import type { FlowChatServices } from '../flowChat/flowChatServices';
import type { ServicesWithPlatform } from '../platform/platformServices';

export interface ChatServices extends ServicesWithPlatform, FlowChatServices {}
