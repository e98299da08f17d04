import * as assert from 'node:assert/strict';
import { createMarkdown, validateLink } from '../../src/runView/page/markdown';

const md = createMarkdown();

/** Every href in the rendered HTML. */
function hrefs(html: string): string[] {
  return [...html.matchAll(/<a\s[^>]*href="([^"]*)"/g)].map((m) => m[1]);
}

describe('run view markdown', () => {
  it('renders ordinary Markdown', () => {
    const html = md.render('# Title\n\n- one\n- **two**\n\n```js\nlet a = 1 < 2;\n```\n');
    assert.match(html, /<h1>Title<\/h1>/);
    assert.match(html, /<strong>two<\/strong>/);
    assert.match(html, /<code class="language-js">let a = 1 &lt; 2;/);
  });

  it('renders task lists as boxes that cannot be clicked (no <input>, no brackets)', () => {
    const html = md.render('- [ ] Buy hay\n- [x] Feed the **llamas**\n- not a task [ ] here\n\n[ ] not in a list\n');
    assert.doesNotMatch(html, /<input/);
    assert.match(html, /<li class="task-list-item"><span class="task-checkbox" role="checkbox" aria-checked="false" aria-disabled="true">☐<\/span> Buy hay<\/li>/);
    assert.match(html, /aria-checked="true" aria-disabled="true">☑<\/span> Feed the <strong>llamas<\/strong>/);
    assert.match(html, /<li>not a task \[ \] here<\/li>/);
    assert.match(html, /<p>\[ \] not in a list<\/p>/);
  });

  it('escapes raw HTML instead of rendering it', () => {
    const corpus = [
      '<script>alert(1)</script>',
      '<img src=x onerror=alert(1)>',
      '<svg onload=alert(1)><script>alert(2)</script></svg>',
      '<iframe src="javascript:alert(1)"></iframe>',
      '<style>body{background:url(javascript:alert(1))}</style>',
      '<a href="javascript:alert(1)">x</a>',
      '<div style="background:url(https://evil.example/x)">x</div>',
      '</style><script>alert(1)</script>',
      '<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>',
    ];
    for (const input of corpus) {
      const html = md.render(input);
      assert.doesNotMatch(html, /<(script|img|svg|iframe|style|div|math)\b/i, `${input} → ${html}`);
      assert.doesNotMatch(html, /<[^>]+\son\w+=/i, `${input} → ${html}`);
      // A URL inside the escaped text may become a link, but only an http(s) one.
      assert.ok(hrefs(html).every(validateLink), `${input} → ${html}`);
    }
  });

  it('makes links only of http(s) URLs', () => {
    const html = md.render(
      [
        '[ok](https://example.com/a)',
        '[js](javascript:alert(1))',
        '[js2](JAVASCRIPT:alert(1))',
        '[js3](java\tscript:alert(1))',
        '[cmd](command:workbench.action.terminal.new)',
        '[vscode](vscode://ms-vscode.x)',
        '[file](file:///etc/passwd)',
        '[data](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)',
        '[rel](./relative.md)',
        '<javascript:alert(1)>',
        '<command:workbench.action.quit>',
        '<https://autolink.example/>',
        'see https://bare.example/x',
        '[ref][r]',
        '',
        '[r]: javascript:alert(1)',
      ].join('\n\n'),
    );
    const links = hrefs(html);
    assert.deepEqual(links, ['https://example.com/a', 'https://autolink.example/', 'https://bare.example/x']);
    for (const link of links) {
      assert.ok(validateLink(link));
    }
    assert.match(html, /rel="noopener noreferrer"/);
  });

  it('does not render images (they would load from the network)', () => {
    const html = md.render('![tracker](https://evil.example/pixel.png)');
    assert.doesNotMatch(html, /<img/);
  });

  it('keeps an attribute breakout in a link title escaped', () => {
    const html = md.render('[x](https://example.com "a\\" onmouseover=\\"alert(1)")');
    assert.doesNotMatch(html, /"\s*onmouseover=/);
    assert.match(html, /title="a&quot; onmouseover=&quot;alert\(1\)"/);
  });
});
