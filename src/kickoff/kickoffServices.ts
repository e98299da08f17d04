// What Kick Off is handed: the services every feature has, the platform (its deployment gate) and the input presets.
import type { ServicesWithPlatform } from '../platform/platformServices';
import type { InputPresets } from './core/inputPresets';

export interface KickoffServices extends ServicesWithPlatform {
  readonly presets: InputPresets;
}
