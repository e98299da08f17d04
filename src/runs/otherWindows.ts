// What every window shares changes in other windows too: this window follows it. On focus it re-reads what its
// watchers may have missed, and every 30 s it re-reads as their backstop, even if it is never focused (it can then
// take over another window's runs and batches should that one close). The poller and the notice relay learn whether
// it has the focus: it polls slower unfocused, and the focused window shows the run notices.
import * as vscode from 'vscode';

const BACKSTOP_MS = 30_000;

export interface FollowingWindows {
  poller: { setFocused(focused: boolean): void };
  notices: { setFocused(focused: boolean): Promise<void> };
  /** Re-read when the window is focused. */
  onFocus: (() => Promise<unknown>)[];
  /** Re-read every 30 s. */
  backstop: (() => Promise<unknown>)[];
}

export function followOtherWindows(windows: FollowingWindows): vscode.Disposable {
  const focused = (focus: boolean) => {
    windows.poller.setFocused(focus);
    void windows.notices.setFocused(focus);
  };
  focused(vscode.window.state.focused);
  const timer = setInterval(() => windows.backstop.forEach((reread) => void reread()), BACKSTOP_MS);
  return vscode.Disposable.from(
    vscode.window.onDidChangeWindowState((state) => {
      focused(state.focused);
      if (state.focused) {
        windows.onFocus.forEach((reread) => void reread());
      }
    }),
    { dispose: () => clearInterval(timer) },
  );
}
