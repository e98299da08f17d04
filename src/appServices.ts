// Everything activate() builds for the features, as one object. Each feature is handed it as the narrow interface
// it declares (services.ts and the feature's own *Services.ts), so no feature names what it does not use.
import type { ChatServices } from './chat/chatServices';
import type { InputPresets } from './kickoff/core/inputPresets';
import type { KickoffServices } from './kickoff/kickoffServices';

export interface AppServices extends KickoffServices, ChatServices {
  readonly presets: InputPresets;
}
