// Chat with Flow's crew picker (a lazy bundle: loaded on the command's first use): the crews that chat first;
// those that did not answer as chat flows under a line that says so; those not asked yet asked while the picker
// is open (flowChat/core/chatSupport.ts, one at a time) and moved to their group as each answers.
import * as vscode from 'vscode';
import type { ChatSupport } from './core/chatSupport';
import type { Crew } from '../crews/crewConfig';
import type { CrewRegistry } from '../crews/crewRegistry';
import { crewFromArgument, pickCrew, sourceLabel } from '../crews/pickCrew';
import { inertLine } from '../util/inertText';

interface CrewItem extends vscode.QuickPickItem {
  crew?: Crew;
}

/** The crew to chat with: the argument's, the only crew, or the user's pick (undefined: none). */
export async function pickChatFlow(crews: CrewRegistry, chats: ChatSupport, arg: unknown, placeholder: string): Promise<Crew | undefined> {
  const all = crews.list();
  if (crewFromArgument(crews, arg) || all.length <= 1) {
    return pickCrew(crews, arg, placeholder); // given, or nothing to choose from: no groups to draw
  }
  const pick = vscode.window.createQuickPick<CrewItem>();
  pick.placeholder = placeholder;
  pick.matchOnDescription = true;
  const item = (crew: Crew): CrewItem => ({ label: inertLine(crew.name), description: inertLine(crew.url), detail: sourceLabel(crew), crew });
  const line = (label: string): CrewItem => ({ label, kind: vscode.QuickPickItemKind.Separator });
  // Redrawn as answers come, the first flow that chats active (Enter takes it): answers come within moments of
  // each other, before a choice is likely made.
  const draw = () => {
    const group = (answer: boolean | undefined) => all.filter((crew) => chats.chats(crew.url) === answer).map(item);
    const [chatting, asking, not] = [group(true), group(undefined), group(false)];
    pick.items = [
      ...chatting,
      ...(asking.length ? [line(vscode.l10n.t('Asking whether these chat…')), ...asking] : []),
      ...(not.length ? [line(vscode.l10n.t('Did not answer as chat flows')), ...not] : []),
    ];
    pick.busy = asking.length > 0;
  };
  try {
    draw();
    const answered = chats.onDidChange(draw);
    try {
      return await new Promise<Crew | undefined>((resolve) => {
        pick.onDidAccept(() => resolve(pick.selectedItems[0]?.crew));
        pick.onDidHide(() => resolve(undefined));
        pick.show();
      });
    } finally {
      answered.dispose();
    }
  } finally {
    pick.dispose();
  }
}
