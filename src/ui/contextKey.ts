// A `when` clause context key that follows a value: set at once, and again whenever one of the events fires and the
// value changed. What the palette hides until there is something to act on ("Cancel Batch…" with no batch).
import * as vscode from 'vscode';

export function followContext(key: string, value: () => boolean, ...changes: ((listener: () => void) => { dispose(): void })[]): vscode.Disposable {
  let current: boolean | undefined;
  const update = () => {
    const next = value();
    if (next !== current) {
      current = next;
      void vscode.commands.executeCommand('setContext', key, next);
    }
  };
  update();
  const subscriptions = changes.map((change) => change(update));
  return { dispose: () => subscriptions.forEach((s) => s.dispose()) };
}
