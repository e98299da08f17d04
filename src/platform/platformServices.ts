// What the platform's commands are handed: the services every feature has, and the organization's platform.
import type { Services } from '../services';
import type { PlatformAccount } from './account';
import type { CrewAIAuthenticationProvider } from './authProvider';
import type { DeploymentHealth } from './deploymentHealth';
import type { ImportedCrews } from './importedCrews';
import type { PlatformClient } from './platformClient';

/** The organization's platform: sign-in, imported crews and their deployment health. */
export interface PlatformServices {
  readonly account: PlatformAccount;
  readonly auth: CrewAIAuthenticationProvider;
  readonly client: PlatformClient;
  readonly imported: ImportedCrews;
  readonly health: DeploymentHealth;
}

export interface ServicesWithPlatform extends Services {
  readonly platform: PlatformServices;
}
