// The judge's model in VS Code: the editor's language model (vscode.lm), chosen once per test run. None (no model,
// or an editor without the API) means the judge checks are skipped, never passed or failed (the core says so). The
// prompt is the core's (the crew's output fenced and labelled untrusted, bounded); the answer is read here only up
// to a bound, so a model that talks on is not held in memory.
import * as vscode from 'vscode';
import type { JudgeModel, JudgePrompt } from './core/judge';

/** The editor's language model as the judge, or undefined when there is none; answers read up to `answerChars` and one more. */
export async function editorJudge(answerChars: number): Promise<JudgeModel | undefined> {
  const lm = vscode.lm as typeof vscode.lm | undefined;
  if (typeof lm?.selectChatModels !== 'function') {
    return undefined;
  }
  let models: vscode.LanguageModelChat[];
  try {
    models = await lm.selectChatModels();
  } catch {
    return undefined;
  }
  const model = models[0];
  return model && ((prompt, signal) => ask(model, prompt, answerChars, signal));
}

async function ask(model: vscode.LanguageModelChat, prompt: JudgePrompt, answerChars: number, signal?: AbortSignal): Promise<string> {
  const cancel = new vscode.CancellationTokenSource();
  const onAbort = () => cancel.cancel();
  signal?.addEventListener('abort', onAbort);
  try {
    const messages = [vscode.LanguageModelChatMessage.User(prompt.instructions), vscode.LanguageModelChatMessage.User(prompt.material)];
    const response = await model.sendRequest(messages, { justification: vscode.l10n.t('Crew Runs asks the model to score a crew\'s output against the criteria of your test suite.') }, cancel.token);
    let answer = '';
    for await (const part of response.text) {
      answer += part;
      // A longer answer is not a score (the core refuses it): stop reading there.
      if (answer.length > answerChars) {
        cancel.cancel();
        break;
      }
    }
    return answer;
  } finally {
    signal?.removeEventListener('abort', onAbort);
    cancel.dispose();
  }
}
