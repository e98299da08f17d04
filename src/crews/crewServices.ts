// What the crews folder's commands use of the extension's services: the crews, their tokens and the crew client.
// Narrow on purpose: crews/ sits at the bottom of the features, so what it is handed names nothing above it.
import type * as vscode from 'vscode';
import type { CrewApi } from '../api/client';
import type { RunStore } from '../runTracking/runStore';
import type { SharedValues } from '../util/sharedValues';
import type { CrewRegistry } from './crewRegistry';
import type { StopSupport } from './stopSupport';
import type { TokenStore } from './tokenStore';

export interface CrewServices {
  readonly log: vscode.LogOutputChannel;
  readonly tokens: TokenStore;
  readonly crews: CrewRegistry;
  /** The crew API client. */
  readonly client: CrewApi;
  /** Crews known not to offer Stop Run. */
  readonly stops: StopSupport;
  /** Small values every window shares (one file per key, changed under its lock); never globalState. */
  readonly shared: SharedValues;
}

/** The demo crews also mark their runs from an earlier server as expired. */
export interface DemoServices extends CrewServices {
  readonly runs: Pick<RunStore, 'list' | 'markExpired' | 'onDidAdd'>;
}
