// Kick Off with a Trigger Payload…: the command, registered with the others; its flow is a bundle of its own
// (dist/triggerKickoff.js), loaded on first use, and handed the main bundle's wizard, value editor, quick input and
// sign-in.
import * as vscode from 'vscode';
import type { ServicesWithPlatform } from './platformServices';
import { describePlatformError, signedIn } from './platformSession';
import type * as TriggerKickoff from './triggerKickoff';

export function registerTriggerKickoff(services: ServicesWithPlatform, kickoff: Pick<TriggerKickoff.TriggerKickoffHost, 'kickOff' | 'editJson' | 'newInput'>): vscode.Disposable {
  return vscode.commands.registerCommand('crewRuns.kickOffWithTriggerPayload', (arg?: unknown) => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const flow = require('./triggerKickoff') as typeof TriggerKickoff;
    return flow.kickOffWithTriggerPayload({ services, ...kickoff, signedIn: () => signedIn(services), describeError: describePlatformError }, arg);
  });
}
