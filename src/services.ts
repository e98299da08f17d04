import type * as vscode from 'vscode';
import type { ChatSupport } from './flowChat/core/chatSupport';
import type { CrewServices } from './crews/crewServices';
import type { InputPresets } from './kickoff/core/inputPresets';
import type { ChatSessionStore } from './flowChat/core/chatSessions';
import type { PlatformAccount } from './platform/account';
import type { CrewAIAuthenticationProvider } from './platform/authProvider';
import type { DeploymentHealth } from './platform/deploymentHealth';
import type { ImportedCrews } from './platform/importedCrews';
import type { PlatformClient } from './platform/platformClient';
import type { RunPoller } from './runs/core/poller';
import type { RunStore } from './runs/core/runStore';
import type { SendOnce } from './runs/core/sendOnce';

/** What the command and view modules share; built once in activate(). The crews folder's part is CrewServices. */
export interface Services extends CrewServices {
  readonly context: vscode.ExtensionContext;
  readonly runs: RunStore;
  readonly poller: RunPoller;
  readonly presets: InputPresets;
  /** Which crews chat (GET /inspect), asked when the tree first draws them. */
  readonly chats: ChatSupport;
  /** Each crew's recent chat sessions, shared by every window (files in global storage). */
  readonly chatSessions: ChatSessionStore;
  /** The send-once marks every window shares: a costly request for one item goes out once (runs/core/sendOnce.ts). */
  readonly sends: SendOnce;
  /** The organization's platform: sign-in, imported crews and their deployment health (src/platform/). */
  readonly platform: PlatformServices;
}

export interface PlatformServices {
  readonly account: PlatformAccount;
  readonly auth: CrewAIAuthenticationProvider;
  readonly client: PlatformClient;
  readonly imported: ImportedCrews;
  readonly health: DeploymentHealth;
}
