import * as vscode from 'vscode';
import { inert, inertLine } from '../util/inertText';

// One step of a multi-step input: a value, Back, Cancel (Escape, with what the box held), or one of the step's own buttons.
export type StepResult<T> =
  | { kind: 'value'; value: T }
  | { kind: 'back' }
  | { kind: 'cancel'; value?: string }
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
  /** No validation message for the prefilled value until it is edited or Enter is pressed. */
  quietUntilEdited?: boolean;
  buttons?: vscode.QuickInputButton[];
  /** Returns a message when the value is not acceptable; undefined when it is. */
  validate?(value: string): string | undefined;
  /** Runs after Enter with a valid value, with the box busy; a returned message keeps the box open. */
  accept?(value: string): Promise<string | undefined>;
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

/**
 * The quick input of a multi-step flow (as VS Code's multi-step input sample): one input box and one
 * quick pick, each created once and reused by every step, so that going from step to step changes
 * the widget's content instead of closing it and opening a new one. The step's own listeners live
 * for that step only; the input stays open between steps until the flow hides or disposes it.
 */
export class StepInput implements vscode.Disposable {
  private box: vscode.InputBox | undefined;
  private pick: vscode.QuickPick<vscode.QuickPickItem> | undefined;
  private shown: vscode.QuickInput | undefined;
  private buttonOfStep: ((button: vscode.QuickInputButton) => void) | undefined;
  /** The running step's end when its widget hides (Escape, or closed by the workbench). */
  private hiddenInStep: ((input: vscode.QuickInput) => void) | undefined;
  private readonly watched = new Map<vscode.QuickInput, vscode.Disposable>();
  /**
   * Hide events still to come from hides that stopped waiting for them (hide()'s guard) and from a widget
   * the other one replaced: when one comes, the widget may be showing a later step, and the event is not
   * that step's Escape.
   */
  private readonly lateHides = new Map<vscode.QuickInput, number>();

  text(options: TextStep): Promise<StepResult<string>> {
    const box = (this.box ??= vscode.window.createInputBox());
    // Titles, prompts and messages may hold a crew's words: prompts and messages render `[x](command:…)` links.
    box.title = inertLine(options.title);
    box.step = options.step;
    box.totalSteps = options.totalSteps;
    box.value = options.value ?? '';
    // Selected whenever a step is shown (the box is reused, so VS Code would leave the caret at the end
    // after Back): typing replaces the value instead of appending to it.
    box.valueSelection = [0, box.value.length];
    box.prompt = options.prompt === undefined ? undefined : inert(options.prompt);
    box.placeholder = options.placeholder === undefined ? undefined : inertLine(options.placeholder);
    box.password = options.password ?? false;
    box.ignoreFocusOut = true;
    box.busy = false;
    box.enabled = true;
    box.buttons = [...(options.canGoBack ? [vscode.QuickInputButtons.Back] : []), ...(options.buttons ?? [])];
    const initial = box.value;
    let pressedEnter = false;
    // Quiet: an untouched prefilled (or empty) box shows the prompt, not "required", until Enter.
    const validate = (value: string) => {
      const quiet = options.quietUntilEdited && !pressedEnter && value === initial;
      box.validationMessage = quiet ? undefined : inertMessage(options.validate?.(value));
    };
    validate(initial);
    return this.run<StepResult<string>>(box, () => ({ kind: 'cancel', value: box.value }), (finish) => {
      this.buttonOfStep = (button) => finish({ kind: 'button', button, value: box.value });
      return [
        box.onDidChangeValue(validate),
        box.onDidAccept(async () => {
          pressedEnter = true;
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
        new vscode.Disposable(() => (this.buttonOfStep = undefined)),
      ];
    });
  }

  /** Presses one of the open text step's buttons (for its keybinding); false when no text step is open. */
  pressButton(button: vscode.QuickInputButton): boolean {
    const press = this.buttonOfStep;
    press?.(button);
    return press !== undefined;
  }

  choose<T extends vscode.QuickPickItem>(options: PickStep<T>): Promise<StepResult<T>> {
    const pick = (this.pick ??= vscode.window.createQuickPick()) as unknown as vscode.QuickPick<T>;
    // Item labels keep the icons the caller put there on purpose: callers make a crew's words in them inert.
    pick.title = inertLine(options.title);
    pick.step = options.step;
    pick.totalSteps = options.totalSteps;
    pick.value = '';
    pick.placeholder = options.placeholder === undefined ? undefined : inertLine(options.placeholder);
    pick.items = options.items;
    pick.ignoreFocusOut = true;
    pick.busy = false;
    pick.enabled = true;
    pick.matchOnDescription = options.matchOnDescription ?? true;
    // Set every step: a reused pick would otherwise keep no active item (Enter would do nothing) or an old one.
    const active = options.activeItem ?? options.items.find((item) => item.kind !== vscode.QuickPickItemKind.Separator);
    pick.activeItems = active ? [active] : [];
    pick.buttons = [...(options.canGoBack ? [vscode.QuickInputButtons.Back] : []), ...(options.buttons ?? [])];
    return this.run<StepResult<T>>(pick, () => ({ kind: 'cancel' }), (finish) => [
      pick.onDidAccept(() => {
        const [selected] = pick.selectedItems.length ? pick.selectedItems : pick.activeItems;
        if (selected) {
          finish({ kind: 'value', value: selected });
        }
      }),
      pick.onDidTriggerButton((button) => {
        finish(button === vscode.QuickInputButtons.Back ? { kind: 'back' } : { kind: 'button', button, value: pick.value });
      }),
    ]);
  }

  /**
   * Keeps the step just answered on screen, busy, while the flow waits for `work` (a request before the next step),
   * so the keyboard stays in the quick input from one step to the next. Escape there aborts `work`'s signal.
   */
  async busyUntil<T>(work: (signal: AbortSignal) => PromiseLike<T>): Promise<T> {
    const abort = new AbortController();
    const shown = this.shown;
    if (!shown) {
      return work(abort.signal);
    }
    shown.busy = true;
    shown.enabled = false;
    const hidden = (input: vscode.QuickInput) => input === shown && abort.abort();
    this.hiddenInStep = hidden;
    try {
      return await work(abort.signal);
    } finally {
      if (this.hiddenInStep === hidden) {
        this.hiddenInStep = undefined;
      }
      shown.busy = false;
      shown.enabled = true;
    }
  }

  /** Hides the input (for an editor, a notification, a request) until the next step shows it again. */
  async hide(): Promise<void> {
    const shown = this.shown;
    this.shown = undefined;
    if (shown && !(await hideAndWait(shown))) {
      this.lateHides.set(shown, (this.lateHides.get(shown) ?? 0) + 1);
    }
  }

  dispose(): void {
    this.shown = undefined;
    this.watched.forEach((subscription) => subscription.dispose());
    this.watched.clear();
    this.lateHides.clear();
    this.box?.dispose();
    this.pick?.dispose();
    this.box = this.pick = undefined;
  }

  private async run<R>(input: vscode.QuickInput, cancelled: () => R, listen: (finish: (result: R) => void) => vscode.Disposable[]): Promise<R> {
    if (!this.watched.has(input)) {
      // Whenever the widget hides (Escape in a step, or between steps), the next step must show it again.
      this.watched.set(
        input,
        input.onDidHide(() => {
          const late = this.lateHides.get(input) ?? 0;
          if (late > 0) {
            this.lateHides.set(input, late - 1);
            return;
          }
          if (this.shown === input) {
            this.shown = undefined;
          }
          this.hiddenInStep?.(input);
        }),
      );
    }
    // The other widget, if one is shown, is not hidden first: hiding gives the keyboard back to whatever
    // had it before (an editor, a webview), which on a busy machine kept it when this step showed.
    // Showing this one replaces it in place; the hide event that replacement sends for the other is
    // expected, and never taken for an Escape, even if the other is shown again before it comes.
    const replaced = this.shown !== input ? this.shown : undefined;
    if (replaced) {
      this.lateHides.set(replaced, (this.lateHides.get(replaced) ?? 0) + 1);
      this.shown = undefined;
    }
    return new Promise<R>((resolve) => {
      let settled = false;
      const hidden = (hiddenInput: vscode.QuickInput) => hiddenInput === input && finish(cancelled());
      const finish = (result: R) => {
        if (!settled) {
          settled = true;
          subscriptions.forEach((s) => s.dispose());
          if (this.hiddenInStep === hidden) {
            this.hiddenInStep = undefined;
          }
          if ((result as { kind: string }).kind === 'cancel') {
            this.shown = undefined;
          }
          resolve(result);
        }
      };
      const subscriptions = listen(finish);
      this.hiddenInStep = hidden;
      if (this.shown !== input) {
        this.shown = input;
        input.show();
      }
    });
  }
}

/** Hides the input and waits for the workbench's hide event: true when it came, false after a second without it. */
function hideAndWait(input: vscode.QuickInput): Promise<boolean> {
  return new Promise((resolve) => {
    // The hide event comes back from the workbench; the timer only guards against it never coming
    // (on a busy machine it can come later: StepInput then knows the event is still to come).
    const timer = setTimeout(() => done(false), 1000);
    const subscription = input.onDidHide(() => done(true));
    function done(came: boolean) {
      clearTimeout(timer);
      subscription.dispose();
      resolve(came);
    }
    input.hide();
  });
}

/** A single text step (a flow of one): its own input, disposed once answered. */
export async function askText(options: TextStep): Promise<StepResult<string>> {
  const input = new StepInput();
  try {
    return await input.text(options);
  } finally {
    input.dispose();
  }
}

/** A single pick step. */
export async function askPick<T extends vscode.QuickPickItem>(options: PickStep<T>): Promise<StepResult<T>> {
  const input = new StepInput();
  try {
    return await input.choose(options);
  } finally {
    input.dispose();
  }
}

function inertMessage(message: string | undefined): string | undefined {
  return message === undefined ? undefined : inert(message);
}
