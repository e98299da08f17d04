// What every feature above crews/ is handed: the crews' part, the extension's context, the runs, their poller and the
// send-once marks. A feature that needs more declares its own interface over this one (platform/platformServices.ts,
// kickoff/kickoffServices.ts, flowChat/flowChatServices.ts, chat/chatServices.ts), so nothing here names a feature
// above the run tracking; the composition root builds one object that is all of them (appServices.ts).
import type * as vscode from 'vscode';
import type { CrewServices } from './crews/crewServices';
import type { RunPoller } from './runTracking/poller';
import type { RunStore } from './runTracking/runStore';
import type { SendOnce } from './runTracking/sendOnce';
import type { LastUsedInputs } from './runTracking/startRun';

export interface Services extends CrewServices {
  readonly context: vscode.ExtensionContext;
  readonly runs: RunStore;
  readonly poller: RunPoller;
  /** The send-once marks every window shares: a costly request for one item goes out once (runTracking/sendOnce.ts). */
  readonly sends: SendOnce;
  /** The inputs last used per crew: every run start remembers them (Kick Off is handed all of the presets). */
  readonly presets: LastUsedInputs;
}
