/**
 * Classic injection payloads. Each one, if it ever ran, would set `window.__xss`
 * (or open a dialog). Fed through every text field the webview components show.
 */
const set = 'window.__xss=1';

export const XSS_PAYLOADS: string[] = [
  `<script>${set}</script>`,
  `<img src=x onerror="${set}">`,
  `<svg onload="${set}">`,
  `<svg><script>${set}</script></svg>`,
  `javascript:${set}`,
  `JaVaScRiPt:alert(1)`,
  `"><iframe srcdoc="<script>parent.__xss=1</script>">`,
  `'><script>${set}</script>`,
  `<a href="javascript:${set}">click</a>`,
  `<body onload=${set}>`,
  `<details open ontoggle="${set}">`,
  `<input autofocus onfocus="${set}">`,
  `<object data="javascript:${set}"></object>`,
  `<embed src="javascript:${set}">`,
  `<math><mtext><table><mglyph><style><img src=x onerror="${set}">`,
  `<iframe src="data:text/html,<script>parent.__xss=1</script>">`,
  '${' + set + '}',
  '`${' + set + '}`',
  `{{constructor.constructor('${set}')()}}`,
  `<style>*{background:url("javascript:${set}")}</style>`,
  `</style><style>:host{display:none}</style>`,
  `x" style="background:url(javascript:${set})`,
  `expression(${set})`,
  `<!--<img src="--><img src=x onerror=${set}//">`,
  `<template><script>${set}</script></template>`,
  `<base href="javascript:/">`,
  `<meta http-equiv="refresh" content="0;url=javascript:${set}">`,
  `\u202Egnp.exe<script>${set}</script>`, // right-to-left override
  `zero\u200Bwidth\u200D\uFEFF<img src=x onerror=${set}>`,
  `lone \uD800 surrogate \uDC00 <b>bold</b>`,
  `data:text/html;base64,PHNjcmlwdD53aW5kb3cuX194c3M9MTwvc2NyaXB0Pg==`,
  `vbscript:msgbox(1)`,
  `<scr<script>ipt>${set}</scr</script>ipt>`,
  `&lt;script&gt;${set}&lt;/script&gt;`,
  `<${'a'.repeat(5_000)} onclick=${set}>`,
  `${'<b>'.repeat(2_000)}deep`,
  `<x-unknown-element onmouseover="${set}">hover</x-unknown-element>`,
];

/** Payloads short enough that a collapsed preview shows them whole (for "rendered as text" checks). */
export const SHORT_PAYLOADS = XSS_PAYLOADS.filter((p) => p.length < 200 && !p.includes('\n'));
