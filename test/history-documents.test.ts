import { describe, expect, it } from 'vitest';
import { splitHtml, splitMarkdown } from '../src/history/document-sections.ts';
import { decodeEntities, htmlToText } from '../src/history/html-text.ts';

describe('splitMarkdown', () => {
  it('splits at ATX headings, links parents, keeps text before the first heading', () => {
    const s = splitMarkdown('Intro line.\n\n# Title  \nbody\n## **A** part ##\ntext\n### Deeper\nmore\n## B\n```\n# code\n```\n');
    expect(s.map((x) => [x.heading, x.level, x.parent])).toEqual([
      ['', 0, undefined],
      ['Title', 1, undefined],
      ['A part', 2, 1],
      ['Deeper', 3, 2],
      ['B', 2, 1],
    ]);
    expect(s[0]!.text).toBe('Intro line.');
    expect(s[2]!.text).toBe('## **A** part ##\ntext');
    expect(s[4]!.text).toBe('## B\n```\n# code\n```');
  });
  it('drops a preamble that is only a rule', () => {
    expect(splitMarkdown('---\n\n# T\nx').map((x) => x.heading)).toEqual(['T']);
  });
});

describe('splitHtml / htmlToText', () => {
  it('splits the body at h1–h6 and renders lists and tables as text', () => {
    const s = splitHtml(
      '<html><head><title>t</title><style>h1{}</style></head><body><h1>Top &amp; <em>More</em></h1><p>a<br />b</p>' +
        '<h3 id="x">Sub</h3><ul><li>one</li><li>two</li></ul></body></html>',
    );
    expect(s.map((x) => [x.heading, x.level, x.parent])).toEqual([
      ['Top & More', 1, undefined],
      ['Sub', 3, 0],
    ]);
    expect(s[0]!.text).toBe('Top & More\n\na\nb');
    expect(s[1]!.text).toBe('Sub\n\n- one\n- two');
  });
  it('decodes named and numeric entities', () => {
    expect(decodeEntities('&lt;a&gt; &#8211; &#x2014; &rsquo;&unknown;')).toBe('<a> – — ’&unknown;');
    expect(htmlToText('<table>\n<tr>\n<th>k</th>\n<th>v</th>\n</tr>\n<tr><td>1</td><td>2</td></tr>\n</table>')).toBe('k | v\n1 | 2');
  });
});
