// The run view page's skeleton: header, actions and every section, empty. Built once per `init`.

import { button, details, h, icon, page, post, saveUiState, t } from './page';
import { traceSection } from './pageTrace';

function action(name: 'copyOutput' | 'saveOutputAs' | 'openOutputInEditor' | 'compareOutput' | 'runAgain' | 'giveFeedback'): () => void {
  return () => post({ type: 'action', action: name });
}

/** Builds the empty page: every section is filled (and shown or hidden) by pageSections.ts. */
export function buildSkeleton(root: HTMLElement, requestRaw: () => void): void {
  const toolbar = h(
    'div',
    { id: 'actions', class: 'toolbar', ariaLabel: t('actions') },
    button(t('copyOutput'), 'copy', action('copyOutput'), { id: 'act-copyOutput' }),
    button(t('saveOutputAs'), 'save-as', action('saveOutputAs'), { id: 'act-saveOutputAs' }),
    button(t('openOutputInEditor'), 'go-to-file', action('openOutputInEditor'), { id: 'act-openOutputInEditor' }),
    button(t('compareOutput'), 'diff', action('compareOutput'), { id: 'act-compareOutput' }),
    button(t('runAgain'), 'debug-rerun', action('runAgain'), { id: 'act-runAgain' }),
    button(t('giveFeedback'), 'feedback', action('giveFeedback'), { id: 'act-giveFeedback', class: 'button primary' }),
  );
  toolbar.setAttribute('role', 'toolbar');

  const raw = details('raw', [t('raw')], h('p', { id: 'rawNote', class: 'muted' }), h('pre', { id: 'rawText', class: 'raw' }));
  raw.addEventListener('toggle', () => {
    saveUiState({ rawOpen: raw.open });
    if (raw.open) {requestRaw();}
  });
  if (page.ui.rawOpen) {raw.open = true;}

  root.replaceChildren(
    h(
      'header',
      {},
      h('h1', { id: 'title' }),
      h('div', { class: 'status-line' }, h('span', { id: 'badge', class: 'badge' }), h('span', { id: 'elapsed', class: 'muted' })),
      h('p', { id: 'message', class: 'message' }),
      h('p', { id: 'warning', class: 'warning' }, icon('warning'), h('span', { id: 'warningText' })),
      h('p', { id: 'removed', class: 'warning' }, icon('trash'), h('span', {}, t('removed'))),
      h(
        'div',
        { class: 'kickoff' },
        h('span', { class: 'muted' }, t('kickoffId')),
        ' ',
        h('code', { id: 'kickoffId' }),
        button(t('copyKickoffId'), 'copy', () => post({ type: 'action', action: 'copyKickoffId' }), { iconOnly: true, id: 'copyKickoffId' }),
      ),
      h('p', { id: 'previousIds', class: 'muted' }),
    ),
    toolbar,
    h('section', { id: 'feedbackWait', class: 'callout' }, icon('feedback'), h('span', { id: 'feedbackWaitText' })),
    h('section', { id: 'errorSection', class: 'error-section' }, h('h2', {}, icon('error'), ' ', t('error')), h('pre', { id: 'errorText', class: 'error-text' })),
    h(
      'section',
      { id: 'progressSection' },
      h('h2', {}, t('progress')),
      h('div', { class: 'progress-row' }, h('progress', { id: 'progressBar' }), h('span', { id: 'progressText' })),
      h('dl', { id: 'currentList', class: 'fields' }),
    ),
    h('section', { id: 'stepSection' }, h('h2', {}, t('latestStep')), h('dl', { id: 'stepList', class: 'fields' })),
    h(
      'section',
      { id: 'finalSection' },
      h('div', { class: 'section-head' }, h('h2', {}, t('output')), button(t('copyJson'), 'copy', () => post({ type: 'copyFinalJson' }), { id: 'copyJson', class: 'button secondary' })),
      h('p', { id: 'noOutput', class: 'muted' }, t('noOutputYet')),
      h('div', { id: 'final', class: 'output' }),
      h('div', { id: 'finalMore', class: 'more' }),
    ),
    traceSection(),
    h('section', { id: 'tasksSection' }, h('h2', { id: 'tasksHeading' }, t('tasks')), h('div', { id: 'tasks' }), h('p', { id: 'tasksHidden', class: 'muted' })),
    h('section', { id: 'inputsSection' }, h('h2', {}, t('inputs')), h('dl', { id: 'inputsList', class: 'fields' })),
    h('section', { id: 'usageSection' }, h('h2', {}, t('usage')), h('dl', { id: 'usageList', class: 'fields numbers' })),
    h('section', { id: 'roundsSection' }, h('h2', {}, t('feedbackRounds')), h('ol', { id: 'rounds', class: 'rounds' })),
    h('section', { id: 'timelineSection' }, h('h2', {}, t('timeline')), h('p', { id: 'historyHidden', class: 'muted' }), h('ol', { id: 'timeline', class: 'timeline' })),
    h('section', { id: 'rawSection' }, raw),
  );
}

