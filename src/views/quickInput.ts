import * as vscode from 'vscode';
import { inert, inertLine } from '../util/inertText';

// One step of a multi-step input: a value, Back, Cancel (Escape), or one of the step's own buttons.
export type StepResult<T> =
  | { kind: 'value'; value: T }
  | { kind: 'back' }
  | { kind: 'cancel' }
  | { kind: 'button'; button: vscode.QuickInputButton; value: string };

export interface TextStep {
  title: string;
  step?: number;
  totalSteps?: number;
  value?: string;
  prompt?: string;
  placeholder?: string;
  password?: boolean;
  /** Shows a Back button. */
  canGoBack?: boolean;
  /** No validation message for the prefilled value (a placeholder like `https://`) until it is edited. */
  quietUntilEdited?: boolean;
  buttons?: vscode.QuickInputButton[];
  /** Returns a message when the value is not acceptable; undefined when it is. */
  validate?(value: string): string | undefined;
  /** Runs after Enter with a valid value, with the box busy; a returned message keeps the box open. */
  accept?(value: string): Promise<string | undefined>;
}

export function askText(options: TextStep): Promise<StepResult<string>> {
  const box = vscode.window.createInputBox();
  // Titles, prompts and messages may hold a crew's words: prompts and messages render `[x](command:…)` links.
  box.title = inertLine(options.title);
  box.step = options.step;
  box.totalSteps = options.totalSteps;
  box.value = options.value ?? '';
  box.prompt = options.prompt === undefined ? undefined : inert(options.prompt);
  box.placeholder = options.placeholder === undefined ? undefined : inertLine(options.placeholder);
  box.password = options.password ?? false;
  box.ignoreFocusOut = true;
  box.buttons = [...(options.canGoBack ? [vscode.QuickInputButtons.Back] : []), ...(options.buttons ?? [])];
  const validate = (value: string) => {
    box.validationMessage = inertMessage(options.validate?.(value));
  };
  if (!options.quietUntilEdited) {
    validate(box.value);
  }
  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: StepResult<string>) => {
      if (!settled) {
        settled = true;
        resolve(result);
        subscriptions.forEach((s) => s.dispose());
        box.dispose();
      }
    };
    const subscriptions = [
      box.onDidChangeValue(validate),
      box.onDidAccept(async () => {
        const message = options.validate?.(box.value);
        if (message) {
          box.validationMessage = inert(message);
          return;
        }
        if (options.accept) {
          box.busy = true;
          box.enabled = false;
          const problem = await options.accept(box.value);
          box.busy = false;
          box.enabled = true;
          if (problem) {
            box.validationMessage = inert(problem);
            return;
          }
        }
        finish({ kind: 'value', value: box.value });
      }),
      box.onDidTriggerButton((button) => {
        finish(button === vscode.QuickInputButtons.Back ? { kind: 'back' } : { kind: 'button', button, value: box.value });
      }),
      box.onDidHide(() => finish({ kind: 'cancel' })),
    ];
    box.show();
  });
}

function inertMessage(message: string | undefined): string | undefined {
  return message === undefined ? undefined : inert(message);
}

export interface PickStep<T extends vscode.QuickPickItem> {
  title: string;
  step?: number;
  totalSteps?: number;
  placeholder?: string;
  items: readonly T[];
  activeItem?: T;
  canGoBack?: boolean;
  buttons?: vscode.QuickInputButton[];
  matchOnDescription?: boolean;
}

export function askPick<T extends vscode.QuickPickItem>(options: PickStep<T>): Promise<StepResult<T>> {
  const pick = vscode.window.createQuickPick<T>();
  // Item labels keep the icons the caller put there on purpose: callers make a crew's words in them inert.
  pick.title = inertLine(options.title);
  pick.step = options.step;
  pick.totalSteps = options.totalSteps;
  pick.placeholder = options.placeholder === undefined ? undefined : inertLine(options.placeholder);
  pick.items = options.items;
  pick.ignoreFocusOut = true;
  pick.matchOnDescription = options.matchOnDescription ?? true;
  if (options.activeItem) {
    pick.activeItems = [options.activeItem];
  }
  pick.buttons = [...(options.canGoBack ? [vscode.QuickInputButtons.Back] : []), ...(options.buttons ?? [])];
  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: StepResult<T>) => {
      if (!settled) {
        settled = true;
        resolve(result);
        subscriptions.forEach((s) => s.dispose());
        pick.dispose();
      }
    };
    const subscriptions = [
      pick.onDidAccept(() => {
        const [selected] = pick.selectedItems.length ? pick.selectedItems : pick.activeItems;
        if (selected) {
          finish({ kind: 'value', value: selected });
        }
      }),
      pick.onDidTriggerButton((button) => {
        finish(button === vscode.QuickInputButtons.Back ? { kind: 'back' } : { kind: 'button', button, value: pick.value });
      }),
      pick.onDidHide(() => finish({ kind: 'cancel' })),
    ];
    pick.show();
  });
}
